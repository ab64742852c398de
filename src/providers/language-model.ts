import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { assertNever } from '../domain/assert-never.ts';
import type { ProviderApi, ResolvedModel } from '../domain/model.ts';
import { createMockLanguageModel } from './mock-model.ts';

/**
 * Each protocol's public endpoint, passed explicitly when a model has no `baseUrl`: the SDK
 * would otherwise read OPENAI_BASE_URL / ANTHROPIC_BASE_URL from the process environment.
 */
const DEFAULT_BASE_URLS: Readonly<Record<Exclude<ProviderApi, 'mock'>, string>> = {
  'openai-responses': 'https://api.openai.com/v1',
  'openai-chat': 'https://api.openai.com/v1',
  'anthropic-messages': 'https://api.anthropic.com/v1',
  'google-generative-ai': 'https://generativelanguage.googleapis.com/v1beta',
};

/** Connections are few (platform offerings plus workspace providers in use); this bounds memory. */
const MAX_CACHED_PROVIDERS = 128;

type ModelFactory = (vendorModelId: string) => LanguageModelV4;

const factories = new Map<string, ModelFactory>();

/**
 * The AI SDK model object for one call to `model`. The provider instance behind it (headers,
 * base URL, key) is cached per connection, so building a model per call costs one object.
 */
export function createLanguageModel(model: ResolvedModel): LanguageModelV4 {
  if (model.api === 'mock') return createMockLanguageModel(model.vendorModelId);
  return factoryFor(model)(model.vendorModelId);
}

function factoryFor(model: ResolvedModel): ModelFactory {
  // The provider name is part of the key: openai-compatible uses it as the provider's name.
  const key = JSON.stringify([model.api, model.provider, model.baseUrl, model.apiKey]);
  const cached = factories.get(key);
  if (cached) {
    // Re-insert so the Map's insertion order is least-recently-used first.
    factories.delete(key);
    factories.set(key, cached);
    return cached;
  }
  const created = memoizeModels(buildFactory(model));
  factories.set(key, created);
  if (factories.size > MAX_CACHED_PROVIDERS) {
    const oldest = factories.keys().next();
    if (!oldest.done) factories.delete(oldest.value);
  }
  return created;
}

/** Model objects are stateless configuration: one per vendor model id is reused by every call. */
function memoizeModels(factory: ModelFactory): ModelFactory {
  const models = new Map<string, LanguageModelV4>();
  return (vendor) => {
    let model = models.get(vendor);
    if (!model) {
      model = factory(vendor);
      if (models.size >= MAX_CACHED_PROVIDERS) models.clear();
      models.set(vendor, model);
    }
    return model;
  };
}

function buildFactory(model: ResolvedModel): ModelFactory {
  const api = model.api;
  if (api === 'mock') return createMockLanguageModel;
  const baseURL = model.baseUrl ?? DEFAULT_BASE_URLS[api];
  // An empty key instead of undefined: the SDK would fall back to OPENAI_API_KEY and friends,
  // handing the platform's credential to a connection that has none (the call then fails `auth`).
  const apiKey = model.apiKey ?? '';
  switch (api) {
    case 'openai-responses': {
      const openai = createOpenAI({ apiKey, baseURL });
      return (vendor) => openai.responses(vendor);
    }
    case 'openai-chat': {
      // The compatible provider (not @ai-sdk/openai's chat model) reads `reasoning_content`, and
      // sends no Authorization header at all when there is no key (local servers).
      const compatible = createOpenAICompatible({
        name: model.provider,
        baseURL,
        ...(model.apiKey === null ? {} : { apiKey: model.apiKey }),
        includeUsage: true,
        supportsStructuredOutputs: true,
      });
      return (vendor) => compatible.chatModel(vendor);
    }
    case 'anthropic-messages': {
      const anthropic = createAnthropic({ apiKey, baseURL });
      return (vendor) => anthropic.messages(vendor);
    }
    case 'google-generative-ai': {
      const google = createGoogleGenerativeAI({ apiKey, baseURL });
      return (vendor) => google.languageModel(vendor);
    }
    default:
      return assertNever(api);
  }
}
