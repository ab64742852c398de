import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { VERSION as COMPATIBLE_VERSION } from '@ai-sdk/openai-compatible';
import { withUserAgentSuffix, withoutTrailingSlash } from '@ai-sdk/provider-utils';
import { jsonSchema, type JSONSchema7, type ToolChoice, type ToolSet } from 'ai';
import {
  convertToLanguageModelPrompt,
  prepareToolChoice,
  prepareTools,
  standardizePrompt,
} from 'ai/internal';
import type { ModelCall } from '../../engine/ports.ts';
import { toolFilesAsUserMessages } from '../chat-tool-files.ts';
import { createLanguageModel } from '../language-model.ts';
import { reasoningCallSettings } from '../reasoning.ts';
import { modelToolSet } from '../tool-set.ts';

/** The model object of an OpenAI-compatible connection: it builds the request body as the SDK path sends it. */
interface ChatModel {
  readonly provider: string;
  readonly supportedUrls: PromiseLike<Record<string, RegExp[]>> | Record<string, RegExp[]>;
  prepareRequest(options: LanguageModelV4CallOptions): Promise<{ body: Record<string, unknown> }>;
}

/** One streaming `POST {baseUrl}/chat/completions`, exactly as the AI SDK path would send it. */
export interface ChatRequest {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** The tools the model was offered (their names decide whether a call's input is valid). */
  tools: ToolSet | undefined;
  toolChoice: ModelCall['toolChoice'];
  /** Forward thought deltas (a level above 0 was asked for and the protocol streams them). */
  streamThinking: boolean;
  /** The provider's name as the SDK reports it (`<provider>.chat`). */
  provider: string;
}

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * Builds the request with the AI SDK's own pieces (prompt conversion, tool preparation, the
 * OpenAI-compatible model's body builder), once per call, so the wire body is the SDK path's: only
 * the response stream is read by hand.
 */
export async function chatRequest(call: ModelCall, abortSignal: AbortSignal): Promise<ChatRequest> {
  const model = createLanguageModel(call.model) as unknown as ChatModel;
  const reasoning = reasoningCallSettings(call.model.api, call.reasoningLevel, call.model.vendorModelId);
  const standardized = await standardizePrompt({
    instructions: call.instructions,
    messages: toolFilesAsUserMessages(call.messages),
  });
  const prompt = await convertToLanguageModelPrompt({
    prompt: standardized,
    supportedUrls: await model.supportedUrls,
    // The provider fetches `input_file_url` attachments itself; the service never downloads them.
    download: async (urls) => urls.map(() => null),
    abortSignal,
    provider: model.provider.split('.')[0] ?? model.provider,
  });
  const tools = call.tools ? modelToolSet(call.tools) : undefined;
  const preparedTools = await prepareTools({ tools });
  const { body } = await model.prepareRequest({
    prompt,
    ...(preparedTools && { tools: preparedTools }),
    toolChoice: prepareToolChoice({ toolChoice: sdkToolChoice(call.toolChoice) }),
    ...(call.responseFormat && {
      responseFormat: {
        type: 'json',
        schema: await jsonSchema(call.responseFormat.schema as JSONSchema7).jsonSchema,
        name: call.responseFormat.name,
      },
    }),
    ...(reasoning.providerOptions && { providerOptions: reasoning.providerOptions }),
    ...(reasoning.reasoning && { reasoning: reasoning.reasoning }),
    abortSignal,
  });
  const baseUrl = withoutTrailingSlash(call.model.baseUrl ?? DEFAULT_BASE_URL) ?? DEFAULT_BASE_URL;
  const apiKey = call.model.apiKey;
  return {
    url: new URL(`${baseUrl}/chat/completions`).toString(),
    headers: withUserAgentSuffix(
      // No key, or an empty one: no Authorization header at all (local servers), as the provider does.
      apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
      `ai-sdk-openai-compatible/${COMPATIBLE_VERSION}`,
    ),
    body: { ...body, stream: true, stream_options: { include_usage: true } },
    tools,
    toolChoice: call.toolChoice,
    streamThinking: reasoning.exposesThinking && (call.reasoningLevel ?? 0) > 0,
    provider: model.provider,
  };
}

export function sdkToolChoice(choice: ModelCall['toolChoice']): ToolChoice<ToolSet> | undefined {
  if (choice === undefined || typeof choice === 'string') return choice;
  return { type: 'tool', toolName: choice.toolName };
}
