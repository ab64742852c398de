import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { WAIT_CAP_MS, withCap } from '../support/waits.ts';

/** Why a scripted turn ended, in provider-neutral form; each fake maps it to its own wire value. */
export type NeutralFinishReason = 'end_turn' | 'max_tokens' | 'tool_use' | 'refusal';

export interface ScriptedToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** `inputTokens` includes `cachedTokens`; `outputTokens` includes `reasoningTokens` (OpenAI's convention). */
export interface ScriptedUsage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens?: number;
  reasoningTokens?: number;
}

/** A successful model turn. Streamed as SSE when the request asks for streaming, else one JSON body. */
export interface ScriptedTurn {
  type?: 'turn';
  thinking?: string[];
  /** Anthropic only: the signature sent after the thinking deltas (defaults to a fixed fake value). */
  thinkingSignature?: string;
  /** OpenAI Chat only: send the reasoning deltas after the text deltas instead of before them. */
  thinkingAfterText?: boolean;
  text?: string[];
  toolCalls?: ScriptedToolCall[];
  /** Defaults to 'tool_use' when there are tool calls, else 'end_turn'. */
  finishReason?: NeutralFinishReason;
  /** Defaults to a rough estimate (4 characters a token). */
  usage?: ScriptedUsage;
  /** Delay between sending the response headers and the first SSE event. */
  firstChunkDelayMs?: number;
  /**
   * Hold the reply until this settles, before its first event or after `holdAfterChunks` events: a
   * test lets the model go on at the moment it picks (once it has acted on what it saw), with no
   * wall-clock window to meet.
   */
  holdUntil?: Promise<unknown>;
  holdAfterChunks?: number;
  /** Delay between consecutive SSE events. */
  chunkIntervalMs?: number;
  /** Cut the connection after this many SSE events (the client gets them, then a premature end of body). */
  dropAfterChunks?: number;
  /** Stop writing after this many SSE events but keep the connection open (a stalled stream). */
  stallAfterChunks?: number;
}

/** An HTTP error. Without `body`, the fake writes its provider's error JSON built from `status` and `message`. */
export interface ScriptedHttpError {
  type: 'http-error';
  status: number;
  body?: Record<string, unknown>;
  message?: string;
  headers?: Record<string, string>;
}

/** Accept the request and never answer (no headers), until the client gives up or the fake closes. */
export interface ScriptedHang {
  type: 'hang';
}

/**
 * A recorded HTTP response replayed byte for byte: the status line, the headers as given (no
 * content-type is added; without a `content-length` header the body goes out chunked, one HTTP chunk
 * per write) and the body written in pieces split at `splitAt`, so a test decides where the client's
 * reads can break (mid-line, mid-JSON, inside a UTF-8 character or a CRLF).
 */
export interface ScriptedRawReply {
  type: 'raw';
  status: number;
  /** The reason phrase of the status line (Node's standard phrase for `status` otherwise). */
  statusText?: string;
  headers?: Record<string, string>;
  /** The body as the server sent it: a string is written as its UTF-8 bytes. */
  body: string | Uint8Array;
  /** Byte offsets (ascending, inside the body) at which one write ends and the next begins. */
  splitAt?: readonly number[];
  /** Delay before every write after the first. */
  writeIntervalMs?: number;
  /**
   * Cut the connection once this many body bytes were written (the rest is never sent): the client
   * gets those bytes, then a premature end of the body (no terminating chunk).
   */
  dropAfterBytes?: number;
  /**
   * Stop writing once this many body bytes were written and keep the connection open (a stalled
   * stream) until the client goes away.
   */
  stallAfterBytes?: number;
}

export type ScriptedReply = ScriptedTurn | ScriptedHttpError | ScriptedHang | ScriptedRawReply;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body, or undefined when the body was empty or not JSON. */
  body: unknown;
  rawBody: string;
  receivedAt: number;
  /** When the reply ended (its connection closed), in epoch ms; undefined while it goes on. */
  respondedAt?: number;
  /** Set when the client closed the connection before the fake finished its reply. */
  closedByClient: boolean;
}

export interface FakeProviderServer {
  /** Base URL to pass as the SDK's `baseURL`, e.g. http://127.0.0.1:PORT/v1. */
  url: string;
  /** Every request received, in order (live array). */
  requests: RecordedRequest[];
  /** Adds replies, used one per request; when the queue runs dry the last reply repeats (initially `ok` text). */
  enqueue(...replies: ScriptedReply[]): void;
  /**
   * Replies decided by each request's body instead of the queue (many runs at once, in any order,
   * each with its own conversation); `undefined` from `decide` falls back to the queue. `reset` clears it.
   */
  replyWith(decide: ((body: Record<string, unknown>) => ScriptedReply | undefined) | undefined): void;
  /** Forget queued replies and recorded requests, and let replies still held (`holdUntil`) go on. */
  reset(): void;
  /** Resolves once at least `count` requests have been received. */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves once `condition` holds, checked on every request received and every reply closed. */
  waitUntil(condition: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface SseEvent {
  event?: string;
  /** Serialized as JSON unless it is already a string (e.g. OpenAI's `[DONE]`). */
  data: unknown;
}

/** The provider-specific half of a fake: how a scripted reply looks on that provider's wire. */
export interface WireFormat {
  /** The one endpoint the fake serves, e.g. '/v1/chat/completions'. */
  endpoint: string;
  wantsStream(body: Record<string, unknown>): boolean;
  streamEvents(turn: ScriptedTurn, body: Record<string, unknown>): SseEvent[];
  jsonResponse(turn: ScriptedTurn, body: Record<string, unknown>): unknown;
  errorBody(status: number, message: string): Record<string, unknown>;
}

const DEFAULT_REPLY: ScriptedTurn = { text: ['ok'] };

export function defaultFinishReason(turn: ScriptedTurn): NeutralFinishReason {
  return turn.finishReason ?? ((turn.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn');
}

function usageFor(turn: ScriptedTurn, rawBody: string): ScriptedUsage {
  if (turn.usage) return turn.usage;
  const output =
    [...(turn.thinking ?? []), ...(turn.text ?? [])].join('').length +
    (turn.toolCalls ?? []).reduce((sum, call) => sum + JSON.stringify(call.input).length, 0);
  return { inputTokens: Math.ceil(rawBody.length / 4), outputTokens: Math.ceil(output / 4) };
}

/** Splits a string into up to `count` roughly equal pieces, so JSON arguments arrive in fragments. */
export function splitIntoPieces(value: string, count = 3): string[] {
  if (value.length <= 1) return [value];
  const size = Math.ceil(value.length / count);
  const pieces: string[] = [];
  for (let start = 0; start < value.length; start += size) pieces.push(value.slice(start, start + size));
  return pieces;
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

async function readBody(req: IncomingMessage): Promise<{ rawBody: string; body: unknown }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const rawBody = Buffer.concat(chunks).toString('utf8');
  try {
    return { rawBody, body: rawBody === '' ? undefined : JSON.parse(rawBody) };
  } catch {
    return { rawBody, body: undefined };
  }
}

function formatSse({ event, data }: SseEvent): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${payload}\n\n`;
}

/** Starts a fake on 127.0.0.1 (random port) that answers `format.endpoint` from the reply queue. */
export async function startScriptedServer(
  format: WireFormat,
  script: ScriptedReply[] = [],
): Promise<FakeProviderServer> {
  const queue: ScriptedReply[] = [...script];
  let decide: ((body: Record<string, unknown>) => ScriptedReply | undefined) | undefined;
  const requests: RecordedRequest[] = [];
  let lastReply: ScriptedReply = DEFAULT_REPLY;
  const shutdown = new AbortController();
  let holdsReleased = new AbortController();
  const waiters = new Set<() => void>();
  const wakeWaiters = () => {
    for (const wake of [...waiters]) wake();
  };
  const droppedResponses = new WeakSet<ServerResponse>();

  function nextReply(): ScriptedReply {
    const reply = queue.shift();
    if (reply !== undefined) lastReply = reply;
    return lastReply;
  }

  function sendJson(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  async function streamTurn(
    res: ServerResponse,
    turn: ScriptedTurn,
    events: SseEvent[],
    signal: AbortSignal,
  ) {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.flushHeaders();
    for (const [index, event] of events.entries()) {
      if (turn.holdUntil && index === (turn.holdAfterChunks ?? 0))
        await Promise.race([turn.holdUntil, untilAborted(signal), untilAborted(holdsReleased.signal)]);
      if (index === turn.dropAfterChunks) return dropConnection(res);
      if (index === turn.stallAfterChunks) return untilAborted(signal);
      const delay = index === 0 ? turn.firstChunkDelayMs : turn.chunkIntervalMs;
      if (delay) await sleep(delay, undefined, { signal });
      if (signal.aborted) return;
      res.write(formatSse(event));
    }
    res.end();
  }

  async function replayRaw(res: ServerResponse, reply: ScriptedRawReply, signal: AbortSignal) {
    const body = typeof reply.body === 'string' ? Buffer.from(reply.body, 'utf8') : Buffer.from(reply.body);
    const end = Math.min(reply.dropAfterBytes ?? reply.stallAfterBytes ?? body.length, body.length);
    const pieces = rawPieces(body.subarray(0, end), reply.splitAt ?? []);
    // Only what the recording has: no Date header, no content-type added.
    res.sendDate = false;
    if (reply.statusText === undefined) res.writeHead(reply.status, reply.headers);
    else res.writeHead(reply.status, reply.statusText, reply.headers);
    res.flushHeaders();
    for (const [index, piece] of pieces.entries()) {
      // At least one event-loop turn before each write (the first too: the client is still taking the
      // headers), so that a client reading in this process takes each piece in a read of its own
      // (bytes that arrive before it reads again are read together).
      if (index > 0 && reply.writeIntervalMs) await sleep(reply.writeIntervalMs, undefined, { signal });
      else await nextTurn();
      if (signal.aborted) return;
      // Each write is flushed before the next starts: with chunked encoding it is one HTTP chunk.
      const written = new Promise<void>((resolve) => res.write(piece, () => resolve()));
      await Promise.race([written, untilAborted(signal)]);
    }
    if (reply.dropAfterBytes !== undefined) return dropConnection(res);
    if (reply.stallAfterBytes !== undefined) return untilAborted(signal);
    res.end();
  }

  /** Half-closes after the written events are flushed, so the client gets them before the abrupt end. */
  async function dropConnection(res: ServerResponse) {
    droppedResponses.add(res);
    const socket = res.socket;
    if (socket) await new Promise<void>((resolve) => socket.end(resolve));
    res.destroy();
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const { rawBody, body } = await readBody(req);
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: flattenHeaders(req),
      body,
      rawBody,
      receivedAt: Date.now(),
      closedByClient: false,
    };
    requests.push(recorded);
    wakeWaiters();
    const replyDone = new AbortController();
    res.on('close', () => {
      recorded.respondedAt = Date.now();
      if (!res.writableFinished && !droppedResponses.has(res))
        recorded.closedByClient = !shutdown.signal.aborted;
      replyDone.abort();
      wakeWaiters();
    });
    const signal = AbortSignal.any([replyDone.signal, shutdown.signal]);

    if (req.method !== 'POST' || new URL(recorded.path, 'http://x').pathname !== format.endpoint) {
      return sendJson(res, 404, format.errorBody(404, `No route for ${req.method} ${recorded.path}`));
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return sendJson(res, 400, format.errorBody(400, 'Request body must be a JSON object'));
    }
    const jsonBody = body as Record<string, unknown>;
    const reply = decide?.(jsonBody) ?? nextReply();
    if (reply.type === 'hang') return untilAborted(signal);
    if (reply.type === 'raw') return replayRaw(res, reply, signal);
    if (reply.type === 'http-error') {
      const errorBody =
        reply.body ?? format.errorBody(reply.status, reply.message ?? `Scripted error ${reply.status}`);
      return sendJson(res, reply.status, errorBody, reply.headers);
    }
    const turn = { ...reply, usage: usageFor(reply, rawBody) };
    if (!format.wantsStream(jsonBody)) return sendJson(res, 200, format.jsonResponse(turn, jsonBody));
    await streamTurn(res, turn, format.streamEvents(turn, jsonBody), signal);
  }

  /** Resolves once `condition` holds; checked now, on every request and on every reply's close. */
  function until(condition: () => boolean, timeoutMs: number, describeTimeout: () => string): Promise<void> {
    let check = () => {};
    const met = new Promise<void>((resolve) => {
      check = () => {
        if (condition()) resolve();
      };
      waiters.add(check);
      check();
    });
    return withCap(met, timeoutMs, describeTimeout).finally(() => waiters.delete(check));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof Error && error.name === 'AbortError') return; // the reply was cut short on purpose
      if (!res.headersSent) sendJson(res, 500, format.errorBody(500, String(error)));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    replyWith: (decider) => {
      decide = decider;
    },
    reset() {
      decide = undefined;
      queue.length = 0;
      requests.length = 0;
      lastReply = DEFAULT_REPLY;
      holdsReleased.abort();
      holdsReleased = new AbortController();
    },
    waitForRequests: (count, timeoutMs = WAIT_CAP_MS) =>
      until(
        () => requests.length >= count,
        timeoutMs,
        () => `fake provider: ${count} requests expected within ${timeoutMs} ms; got ${requests.length}`,
      ),
    waitUntil: (condition, what, timeoutMs = WAIT_CAP_MS) =>
      until(
        condition,
        timeoutMs,
        () => `fake provider: timed out after ${timeoutMs} ms waiting until ${what}`,
      ),
    async close() {
      shutdown.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The body cut at each offset (offsets outside the body or out of order are ignored); no empty piece. */
export function rawPieces(body: Buffer, splitAt: readonly number[]): Buffer[] {
  const pieces: Buffer[] = [];
  let start = 0;
  for (const offset of splitAt) {
    if (offset <= start || offset >= body.length) continue;
    pieces.push(body.subarray(start, offset));
    start = offset;
  }
  if (start < body.length) pieces.push(body.subarray(start));
  return pieces;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
