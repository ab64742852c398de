import { InvalidResponseDataError, JSONParseError, type LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { generateId, secureJsonParse, StreamingToolCallTracker } from '@ai-sdk/provider-utils';
import { mapOpenAICompatibleFinishReason } from '@ai-sdk/openai-compatible/internal';
import type { ContentPart, ToolSet } from 'ai';
import type { ModelTurnOutput, ToolCallRequest } from '../../engine/ports.ts';
import type { TokenUsage } from '../../domain/usage.ts';
import {
  errorEventOf,
  isChatChunk,
  isChatErrorChunk,
  streamErrorFrom,
  type ChatChunk,
  type ChatDelta,
  type ChatUsage,
  type ToolCallDelta,
} from './chat-chunk.ts';
import type { ChatRequest } from './chat-request.ts';
import { parsedToolCall } from './tool-call-input.ts';

type Content = ContentPart<ToolSet>;

/** A JSON chunk that is neither a completion chunk nor an error event; worded by the caller, as the SDK does. */
export class UnreadableChunk {
  readonly value: unknown;
  constructor(value: unknown) {
    this.value = value;
  }
}

/** What a turn's stream came to, in the terms the AI SDK path reports it. */
export interface AssembledTurn {
  text: string;
  /** Whether any delta reached `output` (a retry would repeat it). */
  emitted: boolean;
  /** The first error of the stream (an error event, an unreadable chunk, a missing finish reason). */
  failure: unknown;
  finishReason: { unified: string; raw: string | undefined };
  toolCalls: ToolCallRequest[];
  /** Tool calls on a tools-disabled turn (tool choice `none`): withheld, the turn ends with its text. */
  withheldToolCalls: boolean;
  usage: TokenUsage;
  /** The turn's content, as the SDK collects it: text and reasoning blocks, then tool calls. */
  content: Content[];
}

/**
 * Turns the chunks of one streamed chat completion into the turn, as the
 * OpenAI-compatible provider and the AI SDK's stream transform would: text and
 * reasoning deltas go to `output` as they come; tool-call deltas are assembled
 * by the SDK's own tracker; usage, finish reason and errors are read the same
 * way. Only the per-chunk path is hand-written: no schema library, no web
 * streams, no object per delta beyond what the delta itself carries.
 */
export class ChatTurnAssembler {
  readonly #request: ChatRequest;
  readonly #output: ModelTurnOutput;
  readonly #content: Content[] = [];
  readonly #toolCallParts: Array<Extract<LanguageModelV4StreamPart, { type: 'tool-call' }>> = [];
  readonly #tracker: StreamingToolCallTracker<ToolCallDelta>;
  readonly #pendingToolCalls = new Map<number, { id: string | null; args: string; extra: unknown }>();
  readonly #forwardedIndexes = new Set<number>();
  #text = '';
  #emitted = false;
  #failure: unknown;
  #textPart: { type: 'text'; text: string } | undefined;
  #reasoningPart: { type: 'reasoning'; text: string } | undefined;
  #usage: ChatUsage | null | undefined;
  #rawFinishReason: string | undefined;
  #errored = false;
  #hasRefusal = false;

  constructor(request: ChatRequest, output: ModelTurnOutput) {
    this.#request = request;
    this.#output = output;
    this.#tracker = new StreamingToolCallTracker<ToolCallDelta>(
      {
        enqueue: (part) => {
          if (part.type === 'tool-call') this.#toolCallParts.push(part);
        },
      },
      {
        generateId,
        extractMetadata: (delta) => {
          const signature = delta.extra_content?.google?.thought_signature;
          return signature ? { [this.#providerKey]: { thoughtSignature: signature } } : undefined;
        },
        buildToolCallProviderMetadata: (metadata) => metadata,
      },
    );
  }

  /** The provider-options key the SDK files provider metadata under (the connection's provider id). */
  get #providerKey(): string {
    return this.#request.provider.split('.')[0]?.trim() ?? this.#request.provider;
  }

  get text(): string {
    return this.#text;
  }

  get emitted(): boolean {
    return this.#emitted;
  }

  /** One SSE `data` payload (`[DONE]` excluded). Throws where the SDK's stream would fail. */
  data(text: string): void {
    let value: unknown;
    try {
      value = secureJsonParse(text);
    } catch (error) {
      return this.#error(new JSONParseError({ text, cause: error }));
    }
    if (isChatChunk(value)) {
      if ('error' in value) return this.#error(streamErrorFrom(value.error));
      return this.#chunk(value);
    }
    if (isChatErrorChunk(value)) return this.#error(streamErrorFrom(errorEventOf(value)));
    return this.#error(new UnreadableChunk(value));
  }

  #error(error: unknown): void {
    this.#errored = true;
    this.#rawFinishReason = undefined;
    this.#failure ??= error;
  }

  #chunk(chunk: ChatChunk): void {
    if (chunk.usage != null) this.#usage = chunk.usage;
    const choice = chunk.choices[0];
    if (choice?.finish_reason != null) this.#rawFinishReason = choice.finish_reason;
    const delta = choice?.delta;
    if (delta == null) return;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) this.#reasoningDelta(reasoning);
    if (delta.content != null) this.#contentDeltas(delta.content);
    if (typeof delta.refusal === 'string' && delta.refusal.length > 0) {
      this.#hasRefusal = true;
      this.#textDelta(delta.refusal);
    }
    if (delta.tool_calls != null && delta.tool_calls.length > 0) {
      this.#reasoningPart = undefined;
      for (const call of delta.tool_calls) this.#toolCallDelta(call);
    }
  }

  #contentDeltas(content: NonNullable<ChatDelta['content']>): void {
    if (typeof content === 'string') {
      if (content.length > 0) this.#textDelta(content);
      return;
    }
    for (const part of content) {
      if (part.type === 'text' && typeof part.text === 'string') {
        if (part.text.length > 0) this.#textDelta(part.text);
      } else if (part.type === 'thinking' && Array.isArray(part.thinking)) {
        const thought = (part.thinking as unknown[])
          .map((piece) =>
            typeof piece === 'object' &&
            piece !== null &&
            'type' in piece &&
            piece.type === 'text' &&
            'text' in piece &&
            typeof piece.text === 'string'
              ? piece.text
              : undefined,
          )
          .filter((piece) => piece !== undefined)
          .join('');
        if (thought.length > 0) this.#reasoningDelta(thought);
      }
    }
  }

  #textDelta(text: string): void {
    this.#reasoningPart = undefined;
    if (!this.#textPart) {
      this.#textPart = { type: 'text', text: '' };
      this.#content.push(this.#textPart);
    }
    this.#textPart.text += text;
    this.#text += text;
    this.#emitted = true;
    this.#output.onText(text);
  }

  #reasoningDelta(text: string): void {
    this.#textPart = undefined;
    if (!this.#reasoningPart) {
      this.#reasoningPart = { type: 'reasoning', text: '' };
      this.#content.push(this.#reasoningPart);
    }
    this.#reasoningPart.text += text;
    if (this.#request.streamThinking) {
      this.#emitted = true;
      this.#output.onThinking(text);
    }
  }

  /** A call's deltas are held until its name arrives, then handed to the tracker (as the provider does). */
  #toolCallDelta(delta: ToolCallDelta): void {
    const index = delta.index;
    if (index == null || this.#forwardedIndexes.has(index)) {
      this.#tracker.processDelta(delta);
      return;
    }
    let pending = this.#pendingToolCalls.get(index);
    if (!pending) {
      pending = { id: delta.id ?? null, args: '', extra: delta.extra_content ?? null };
      this.#pendingToolCalls.set(index, pending);
    } else {
      if (pending.id == null && delta.id != null) pending.id = delta.id;
      if (pending.extra == null && delta.extra_content != null) pending.extra = delta.extra_content;
    }
    if (delta.function.arguments != null) pending.args += delta.function.arguments;
    const name = delta.function.name;
    if (name == null) return;
    const forwarded: ToolCallDelta = { index, id: pending.id, function: { name, arguments: pending.args } };
    if (pending.extra != null) forwarded.extra_content = pending.extra;
    this.#tracker.processDelta(forwarded);
    this.#pendingToolCalls.delete(index);
    this.#forwardedIndexes.add(index);
  }

  /** The end of the stream: calls still held, the tracker's calls, the finish reason. */
  finish(): AssembledTurn {
    for (const [index, pending] of this.#pendingToolCalls) {
      this.#tracker.processDelta({ index, id: pending.id, function: { arguments: pending.args } });
    }
    this.#pendingToolCalls.clear();
    this.#tracker.flush();

    let finishReason: AssembledTurn['finishReason'] | undefined;
    if (this.#rawFinishReason != null) {
      finishReason = {
        unified: mapOpenAICompatibleFinishReason(this.#rawFinishReason, { hasRefusal: this.#hasRefusal }),
        raw: this.#rawFinishReason,
      };
    } else if (this.#errored) {
      finishReason = { unified: 'error', raw: undefined };
    } else {
      finishReason = { unified: 'error', raw: undefined };
      this.#failure ??= new InvalidResponseDataError({
        data: undefined,
        message: 'Response stream ended without a finish reason.',
      });
    }

    const { toolCalls, withheld } = this.#toolCalls();
    return {
      text: this.#text,
      emitted: this.#emitted,
      failure: this.#failure,
      finishReason,
      toolCalls,
      withheldToolCalls: withheld,
      usage: usageOf(this.#usage),
      content: this.#content,
    };
  }

  /**
   * The turn's tool calls, parsed as the SDK parses them. With tool choice `none` they are withheld
   * (the turn ends with its text, as asked); a forced tool the model did not call leaves the turn
   * with what it said, as on the SDK path (the run's controls decide what follows).
   */
  #toolCalls(): {
    toolCalls: ToolCallRequest[];
    withheld: boolean;
  } {
    const parsed = this.#toolCallParts.map((part) => parsedToolCall(part, this.#request.tools));
    this.#content.push(...(parsed as Content[]));
    if (this.#request.toolChoice === 'none') return { toolCalls: [], withheld: parsed.length > 0 };
    const toolCalls = parsed.map((call) => ({ id: call.toolCallId, name: call.toolName, input: call.input }));
    return { toolCalls, withheld: false };
  }
}

/** The spec's `tokens` from the chunk's usage (0 when the provider reports nothing), as the SDK path reads it. */
function usageOf(usage: ChatUsage | null | undefined): TokenUsage {
  return {
    inputTokens: usage?.prompt_tokens ?? 0,
    cachedTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
    reasoningTokens: usage?.completion_tokens_details?.reasoning_tokens ?? 0,
    outputTokens: usage?.completion_tokens ?? 0,
  };
}
