import type { ResolvedModel } from '../../../src/domain/model.ts';
import type { ModelCall } from '../../../src/engine/ports.ts';
import type { ScriptedRawReply } from '../../fakes/scripted-reply.ts';

/**
 * One recorded OpenAI Chat Completions exchange: the call a model port is given and the raw HTTP
 * response the provider sent back. Differential tests replay it through two ports and require the
 * same request on the wire, the same deltas and the same outcome.
 */
export interface CorpusCase {
  /** What the case covers (unique in the corpus). */
  name: string;
  /** The call; its model is reached at the fake's URL (see `modelCallFor`). */
  call: CorpusCall;
  reply: ScriptedRawReply;
}

/** A model call without its model's address, which only the fake knows. */
export interface CorpusCall extends Omit<ModelCall, 'model'> {
  model?: ModelOverrides;
}

export interface ModelOverrides {
  provider?: string;
  vendorModelId?: string;
  apiKey?: string | null;
  /** Appended to the fake's base URL (e.g. a trailing slash). */
  baseUrlSuffix?: string;
}

/** The model every case calls unless it says otherwise: a workspace's OpenAI-compatible connection. */
const DEFAULT_MODEL = {
  provider: 'acme',
  vendorModelId: 'gpt-4o-mini',
  apiKey: 'sk-proj-corpusKey0123456789abcdef',
} as const;

export function modelCallFor({ call }: CorpusCase, baseUrl: string): ModelCall {
  const { model: overrides = {}, ...rest } = call;
  const provider = overrides.provider ?? DEFAULT_MODEL.provider;
  const vendorModelId = overrides.vendorModelId ?? DEFAULT_MODEL.vendorModelId;
  const model: ResolvedModel = {
    id: `${provider}/${vendorModelId}`,
    label: vendorModelId,
    provider,
    vendorModelId,
    source: 'workspace_provider',
    contextWindowTokens: 128_000,
    pricing: null,
    api: 'openai-chat',
    baseUrl: `${baseUrl}${overrides.baseUrlSuffix ?? ''}`,
    apiKey: overrides.apiKey === undefined ? DEFAULT_MODEL.apiKey : overrides.apiKey,
    connectionRef: 'provider:corpus',
    reasoningControl: true,
  };
  return { ...rest, model };
}

/** The body as the bytes the fake writes. */
export function bodyBytes(reply: ScriptedRawReply): Buffer {
  return typeof reply.body === 'string' ? Buffer.from(reply.body, 'utf8') : Buffer.from(reply.body);
}

// ---- building recorded streams ------------------------------------------------------------------

/** The fields every chunk of one completion repeats. */
export interface ChunkEnvelope {
  id: string;
  created: number;
  model: string;
  /** Extra top-level fields some servers add to every chunk (`system_fingerprint`, `service_tier`, …). */
  extra?: Record<string, unknown>;
}

type Delta = Record<string, unknown>;

/**
 * A function making the JSON of one `chat.completion.chunk` of `envelope` with one choice (index 0,
 * `logprobs: null`, as OpenAI and vLLM send them) and any other top-level fields.
 */
export function chunker(envelope: ChunkEnvelope) {
  const base = (): Record<string, unknown> => ({
    id: envelope.id,
    object: 'chat.completion.chunk',
    created: envelope.created,
    model: envelope.model,
    ...envelope.extra,
  });
  const choice = (delta: Delta, finishReason: string | null = null, extraChoice: Delta = {}) =>
    JSON.stringify({
      ...base(),
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason, ...extraChoice }],
    });
  /** A chunk with no choice (the usage-only final chunk, Azure's prompt filter results). */
  const noChoice = (fields: Record<string, unknown>) => JSON.stringify({ ...base(), choices: [], ...fields });
  return { choice, noChoice };
}

export interface SseStyle {
  /** The line ending (`\n`, `\r\n`, or a bare `\r`). */
  eol?: string;
  /** `data: ` (the usual) or `data:` with no space. */
  dataPrefix?: string;
}

/** Server-sent events, one `data` line each (`:`-prefixed entries are written as comment lines). */
export function sse(events: readonly string[], { eol = '\n', dataPrefix = 'data: ' }: SseStyle = {}): string {
  return events
    .map((event) => (event.startsWith(':') ? `${event}${eol}${eol}` : `${dataPrefix}${event}${eol}${eol}`))
    .join('');
}

export const DONE = '[DONE]';

/** Response headers of a streamed 200 as OpenAI sends them. */
export const OPENAI_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'openai-processing-ms': '212',
  'openai-version': '2020-10-01',
  'x-request-id': 'req_5d1f0c7e2b8a4c3e9f1a2b3c4d5e6f70',
  'cache-control': 'no-cache, must-revalidate',
};

/** A streamed 200 with this body (OpenAI's headers unless given). */
export function streamed(
  body: string,
  options: Omit<ScriptedRawReply, 'type' | 'status' | 'body'> = {},
): ScriptedRawReply {
  return { type: 'raw', status: 200, headers: { ...OPENAI_STREAM_HEADERS }, ...options, body };
}

/** An error answer: `status`, a JSON (or other) body and headers as given. */
export function failed(
  status: number,
  body: string | Record<string, unknown>,
  options: Omit<ScriptedRawReply, 'type' | 'status' | 'body'> = {},
): ScriptedRawReply {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const headers = {
    'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...options.headers,
  };
  return { type: 'raw', status, ...options, headers, body: text };
}

// ---- where writes split ---------------------------------------------------------------------------

/** The byte offset just after the `nth` (1-based) occurrence of `marker` in `body`. */
export function offsetAfter(body: string, marker: string, nth = 1): number {
  let index = -1;
  for (let seen = 0; seen < nth; seen++) {
    index = body.indexOf(marker, index + 1);
    if (index < 0) throw new Error(`corpus: ${JSON.stringify(marker)} occurs fewer than ${nth} times`);
  }
  return Buffer.byteLength(body.slice(0, index + marker.length));
}

/** The byte offset `bytesIn` bytes into the first occurrence of the multi-byte `character`. */
export function offsetInside(body: string, character: string, bytesIn = 1): number {
  const index = body.indexOf(character);
  if (index < 0) throw new Error(`corpus: ${JSON.stringify(character)} does not occur`);
  if (bytesIn <= 0 || bytesIn >= Buffer.byteLength(character))
    throw new Error(`corpus: ${bytesIn} is not inside ${JSON.stringify(character)}`);
  return Buffer.byteLength(body.slice(0, index)) + bytesIn;
}

/** Every byte offset of the body: one byte per write. */
export function everyByte(body: string): number[] {
  return Array.from({ length: Buffer.byteLength(body) - 1 }, (_, index) => index + 1);
}
