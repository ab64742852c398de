/**
 * The three ways bench/openai-chat-parsers.ts consumes one streamed OpenAI Chat Completions call, each
 * the way the service would: forward text (and, when asked, thought) deltas as they arrive,
 * accumulate text and reasoning, assemble tool calls by `index` and parse their arguments, read the
 * usage and the finish reason, and build the assistant message for the next turn.
 *   openai-sdk  the official `openai` SDK: `client.chat.completions.create({ stream: true })`, iterated
 *   fetch-esp   Node's fetch (undici) + eventsource-parser's `createParser` + JSON.parse per event,
 *               reading `response.body` with its reader (no TransformStream)
 *   ai-sdk      the service's path today: `aiSdkModelPort` (@ai-sdk/openai-compatible through the
 *               AI SDK's experimental_streamLanguageModelCall)
 */
import type { AssistantModelMessage, ModelMessage } from 'ai';
import { createParser } from 'eventsource-parser';
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { ResolvedModel } from '../src/domain/model.ts';
import type { TokenUsage } from '../src/domain/usage.ts';
import type { CompletedTurn, ModelCall, ModelTurnOutput, ToolCallRequest } from '../src/engine/ports.ts';
import { aiSdkModelPort } from '../src/providers/ai-sdk-model-turn.ts';
import type { Variant } from './openai-chat-variants.ts';

export const CANDIDATE_NAMES = ['openai-sdk', 'fetch-esp', 'ai-sdk'] as const;
export type CandidateName = (typeof CANDIDATE_NAMES)[number];

/** One call: `baseUrl` is the variant's fake (…/v1); deltas go to `output`. */
export type Candidate = (
  baseUrl: string,
  variant: Variant,
  signal: AbortSignal,
  output: ModelTurnOutput,
) => Promise<CompletedTurn>;

const API_KEY = 'sk-fake-provider-key';
const INSTRUCTIONS = 'You are a helpful assistant. Be brief.';
const PROMPT = 'What is the weather like in San Francisco this week?';

// ---------------------------------------------------------------- the wire, as (a) and (b) read it

interface WireToolCallDelta {
  index: number;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

interface WireChoice {
  index: number;
  delta?: {
    content?: string | null;
    /** Not in the OpenAI API: DeepSeek, vLLM and others stream thoughts here (`reasoning` on some). */
    reasoning_content?: string | null;
    reasoning?: string | null;
    tool_calls?: WireToolCallDelta[] | null;
  } | null;
  finish_reason?: string | null;
}

interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

interface WireChunk {
  choices?: WireChoice[] | null;
  usage?: WireUsage | null;
}

const FINISH_REASONS: Readonly<Record<string, string>> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

/** The request body the lean paths send (what the AI SDK sends for the same call, give or take). */
function requestBody(variant: Variant): ChatCompletionCreateParamsStreaming {
  return {
    model: 'fake-model',
    messages: [
      { role: 'system', content: INSTRUCTIONS },
      { role: 'user', content: PROMPT },
    ],
    stream: true,
    stream_options: { include_usage: true },
    ...(variant.tools && {
      tools: variant.tools.map((tool) => ({
        type: 'function' as const,
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      })),
    }),
    ...(variant.reasoningLevel !== null && { reasoning_effort: 'medium' as const }),
  };
}

/** One turn being read: what the service keeps of the chunks, in arrival order. */
class TurnAccumulator {
  text = '';
  reasoning = '';
  finishReason: string | null = null;
  usage: WireUsage | null = null;
  readonly calls: Array<{ id: string; name: string; arguments: string }> = [];
  readonly #output: ModelTurnOutput;
  readonly #streamThinking: boolean;

  constructor(output: ModelTurnOutput, streamThinking: boolean) {
    this.#output = output;
    this.#streamThinking = streamThinking;
  }

  add(chunk: WireChunk): void {
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta;
    if (delta) {
      const content = delta.content;
      if (content) {
        this.text += content;
        this.#output.onText(content);
      }
      const thought = delta.reasoning_content ?? delta.reasoning;
      if (thought) {
        this.reasoning += thought;
        if (this.#streamThinking) this.#output.onThinking(thought);
      }
      if (delta.tool_calls) {
        for (const part of delta.tool_calls) {
          const call = (this.calls[part.index] ??= { id: '', name: '', arguments: '' });
          if (part.id) call.id = part.id;
          const fn = part.function;
          if (fn?.name) call.name += fn.name;
          if (fn?.arguments) call.arguments += fn.arguments;
        }
      }
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  finish(): CompletedTurn {
    const toolCalls: ToolCallRequest[] = [];
    for (const call of this.calls) {
      if (call) toolCalls.push({ id: call.id, name: call.name, input: JSON.parse(call.arguments || '{}') });
    }
    const usage: TokenUsage = {
      inputTokens: this.usage?.prompt_tokens ?? 0,
      cachedTokens: this.usage?.prompt_tokens_details?.cached_tokens ?? 0,
      reasoningTokens: this.usage?.completion_tokens_details?.reasoning_tokens ?? 0,
      outputTokens: this.usage?.completion_tokens ?? 0,
    };
    const content: AssistantModelMessage['content'] = [];
    if (this.reasoning !== '') content.push({ type: 'reasoning', text: this.reasoning });
    if (this.text !== '') content.push({ type: 'text', text: this.text });
    for (const call of toolCalls)
      content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input });
    const responseMessages: ModelMessage[] = content.length > 0 ? [{ role: 'assistant', content }] : [];
    const finishReason =
      this.finishReason === null ? null : (FINISH_REASONS[this.finishReason] ?? this.finishReason);
    return { text: this.text, finishReason, toolCalls, usage, responseMessages };
  }
}

// ---------------------------------------------------------------- (a) the openai SDK

/** One client per base URL, as the service keeps one provider object per connection. */
const openAIClients = new Map<string, OpenAI>();

const openAISdk: Candidate = async (baseUrl, variant, signal, output) => {
  let client = openAIClients.get(baseUrl);
  if (!client) {
    // SDK defaults otherwise: maxRetries 2 and a 10-minute timeout (one timer per request). No call
    // here fails, so retries change no work; the AI SDK's streamLanguageModelCall does not retry (the
    // service's turn loop does), so a lean path would pass maxRetries: 0.
    client = new OpenAI({ apiKey: API_KEY, baseURL: baseUrl });
    openAIClients.set(baseUrl, client);
  }
  const turn = new TurnAccumulator(output, variant.reasoningLevel !== null);
  const stream = await client.chat.completions.create(requestBody(variant), { signal });
  for await (const chunk of stream) turn.add(chunk);
  return turn.finish();
};

// ---------------------------------------------------------------- (b) fetch + eventsource-parser

const fetchEventSourceParser: Candidate = async (baseUrl, variant, signal, output) => {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
    body: JSON.stringify(requestBody(variant)),
    signal,
  });
  if (!response.ok || !response.body) {
    throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  }
  const turn = new TurnAccumulator(output, variant.reasoningLevel !== null);
  let done = false;
  let failure: Error | undefined;
  const parser = createParser({
    onEvent(event) {
      if (done) return;
      if (event.data === '[DONE]') {
        done = true;
        return;
      }
      const chunk = JSON.parse(event.data) as WireChunk & { error?: { message?: string } };
      if (chunk.error) {
        failure ??= new Error(chunk.error.message ?? 'provider error in stream');
        return;
      }
      turn.add(chunk);
    },
  });
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done: ended, value } = await reader.read();
      if (ended) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    reader.releaseLock();
  }
  if (failure) throw failure;
  return turn.finish();
};

// ---------------------------------------------------------------- (c) the AI SDK, as the service calls it

function resolvedModel(baseUrl: string): ResolvedModel {
  return {
    ...{ id: 'bench/fake-model', label: 'Fake', provider: 'bench', vendorModelId: 'fake-model' },
    ...{ source: 'workspace_provider', contextWindowTokens: 128_000, pricing: null },
    ...{ api: 'openai-chat', baseUrl, apiKey: API_KEY, connectionRef: 'provider:bench' },
    reasoningControl: true,
  };
}

const aiSdk: Candidate = (baseUrl, variant, signal, output) => {
  const call: ModelCall = {
    model: resolvedModel(baseUrl),
    instructions: INSTRUCTIONS,
    messages: [{ role: 'user', content: PROMPT }],
    ...(variant.tools && { tools: variant.tools }),
    reasoningLevel: variant.reasoningLevel,
  };
  return aiSdkModelPort.call(call, signal, output);
};

export const CANDIDATES: Record<CandidateName, Candidate> = {
  'openai-sdk': openAISdk,
  'fetch-esp': fetchEventSourceParser,
  'ai-sdk': aiSdk,
};
