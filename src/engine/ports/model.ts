import type { ModelMessage } from 'ai';
import type { ResolvedModel } from '../../domain/model.ts';
import type { TokenUsage } from '../../domain/usage.ts';

/** How a failed provider call is classified, in the terms of the spec's terminal `error` event. */
export type ProviderErrorClass =
  | 'rate_limit'
  | 'overloaded'
  | 'server'
  | 'context_window'
  | 'invalid_request'
  | 'auth'
  | 'timeout'
  | 'upstream_deadline'
  | 'unknown';

/** One failed provider call. */
export interface ProviderFailure {
  errorClass: ProviderErrorClass;
  /** The provider's own message (API keys redacted). */
  message: string;
  retryable: boolean;
  apiStatus?: number;
  apiCode?: string;
  retryAfterMs?: number;
}

/** What the model is told about a tool: plain data, so a model call can cross to another thread. */
export interface ModelToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** `auto`, `none` (tools disabled for the turn), or one named tool the model must call. */
export type ModelToolChoice = 'auto' | 'none' | { toolName: string };

/** A JSON-schema response format for the turn's reply. */
export interface ResponseFormat {
  name: string;
  schema: Record<string, unknown>;
}

/** What one model call needs, as plain data. */
export interface ModelCall {
  model: ResolvedModel;
  instructions: string;
  messages: ModelMessage[];
  tools?: readonly ModelToolDefinition[];
  toolChoice?: ModelToolChoice;
  responseFormat?: ResponseFormat;
  /** 0-100, or null when no level was asked for; the provider maps it onto its own control. */
  reasoningLevel: number | null;
  /**
   * Headers the provider request carries besides its own: the `traceparent` of the call's span, given
   * as data so that it crosses to a model thread with the call.
   */
  headers?: Record<string, string>;
}

export interface ModelTurnOutput {
  onText(text: string): void;
  /** Thought deltas, only when a level above 0 was asked for and the provider exposes thoughts. */
  onThinking(text: string): void;
}

export interface ToolCallRequest {
  id: string;
  name: string;
  input: unknown;
}

export interface CompletedTurn {
  text: string;
  finishReason: string | null;
  toolCalls: ToolCallRequest[];
  usage: TokenUsage;
  /** The assistant messages as the provider built them (reasoning signatures included), for the next turn. */
  responseMessages: ModelMessage[];
}

/** A model call that failed at the provider; `emittedOutput` tells whether deltas already reached the client. */
export class ModelTurnError extends Error {
  readonly failure: ProviderFailure;
  readonly partialText: string;
  readonly emittedOutput: boolean;
  constructor(failure: ProviderFailure, partialText: string, emittedOutput: boolean) {
    super(failure.message);
    this.name = 'ModelTurnError';
    this.failure = failure;
    this.partialText = partialText;
    this.emittedOutput = emittedOutput;
  }
}

/**
 * The errorClass of a model call that threw, as its metric and its span report it: the provider
 * failure's class, or `cancelled` when the call was aborted (`signal`); undefined for any other
 * error, which each reporter names its own way.
 */
export function modelErrorClass(
  error: unknown,
  signal: AbortSignal,
): ProviderErrorClass | 'cancelled' | undefined {
  if (error instanceof ModelTurnError) return error.failure.errorClass;
  return signal.aborted ? 'cancelled' : undefined;
}

/** Makes model calls, wherever they run (on the event loop's thread or on model threads). */
export interface ModelPort {
  /**
   * Streams one model call: deltas go to `output` as they arrive; settles with the completed turn,
   * throws `ModelTurnError` when the provider fails, or the abort reason once `signal` aborts.
   */
  call(call: ModelCall, signal: AbortSignal, output: ModelTurnOutput): Promise<CompletedTurn>;
  close(): Promise<void>;
}

/** The model catalog, as the engine resolves models with it. */
export interface ModelResolver {
  /**
   * A `modelId` in any of its forms (omitted: the workspace default) as a model the service can call;
   * throws `InvalidModelError` when it does not resolve.
   */
  resolve(workspaceId: string, modelId: string | undefined): Promise<ResolvedModel>;
}
