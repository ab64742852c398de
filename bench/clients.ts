import http, { type IncomingMessage } from 'node:http';
import { eventType, SseSplitter } from './sse-reader.ts';
import { wallNow } from './stats.ts';

/** One streamed run as the client saw it; times in ms from the start of its first request. */
export interface RunSample {
  marker: string;
  /** Wall-clock start (ms), to line up with the fake provider's request stamps. */
  startWall: number;
  ttftMs: number;
  doneMs: number;
  /** Service only: the POST answered, and the stream's response headers arrived. */
  ackMs?: number;
  streamOpenMs?: number;
  /** Frames received (service: events of the run's log). */
  frames: number;
}

/**
 * Why a run did not end with a result: `transport` (a socket error, an HTTP error status, a stream
 * cut before its end) or `no-result` (the stream ended normally, without a `result`).
 */
export type FailureKind = 'transport' | 'no-result';

export class RunFailure extends Error {
  readonly kind: FailureKind;
  constructor(kind: FailureKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

/** What a run that failed is counted as: a `RunFailure`'s kind; anything else (socket errors) is transport. */
export function failureKind(error: unknown): FailureKind {
  return error instanceof RunFailure ? error.kind : 'transport';
}

/**
 * The load generator's HTTP client: Node's http.Agent, which opens as many sockets per origin as
 * there are requests in flight (maxSockets and maxTotalSockets unlimited) and keeps them for reuse.
 * `maxFreeSockets` is per origin: above the largest level's concurrency, so a wave's sockets are
 * reused by the next one instead of being closed and reopened.
 */
export const loadAgent = new http.Agent({
  keepAlive: true,
  maxSockets: Infinity,
  maxTotalSockets: Infinity,
  maxFreeSockets: 16_384,
});

/** Requests in flight from the load generator (a request counts until its response body ended). */
export const clientLoad = { inFlight: 0, peak: 0 };

/** The most requests the load generator had in flight since the last call (then restarts from now). */
export function takeClientPeak(): number {
  const peak = clientLoad.peak;
  clientLoad.peak = clientLoad.inFlight;
  return peak;
}

/** Sockets the agent holds open now (in use and free), over every origin. */
export function agentSockets(agent: http.Agent = loadAgent): number {
  let count = 0;
  for (const list of [...Object.values(agent.sockets), ...Object.values(agent.freeSockets)])
    count += list?.length ?? 0;
  return count;
}

export function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
  agent: http.Agent = loadAgent,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    clientLoad.inFlight++;
    if (clientLoad.inFlight > clientLoad.peak) clientLoad.peak = clientLoad.inFlight;
    let counted = true;
    const done = () => {
      if (counted) clientLoad.inFlight--;
      counted = false;
    };
    const request = http.request(url, { method, headers, agent }, (response) => {
      response.once('close', done);
      resolve(response);
    });
    request.on('error', (error) => {
      done();
      reject(error);
    });
    request.end(body);
  });
}

export function readText(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (text += chunk));
    response.on('end', () => resolve(text));
    response.on('error', reject);
  });
}

/**
 * Feeds a response body to an SSE splitter until the server ends it; rejects with a transport
 * failure when the connection closes before the body's end.
 */
export function readSse(response: IncomingMessage, onBlock: (block: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const splitter = new SseSplitter(onBlock);
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => splitter.push(chunk));
    response.on('end', resolve);
    response.on('error', reject);
    response.on('close', () => {
      if (!response.complete) reject(new RunFailure('transport', 'stream closed before its end'));
    });
  });
}

let markers = 0;
const nextMarker = () => `${process.pid.toString(36)}-${(markers++).toString(36)}`;

/** Provider config for direct calls: the same model and prompt the service sends. */
export interface DirectTarget {
  baseUrl: string;
}

/** One streamed Chat Completions call straight to the fake: time to first content chunk and to [DONE]. */
export async function directRun(target: DirectTarget): Promise<RunSample> {
  const marker = nextMarker();
  const startWall = wallNow();
  const start = performance.now();
  const body = JSON.stringify({
    model: 'fake-model',
    stream: true,
    stream_options: { include_usage: true },
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: `hello brun-${marker}` },
    ],
  });
  const response = await send(
    `${target.baseUrl}/chat/completions`,
    'POST',
    { 'content-type': 'application/json', authorization: 'Bearer sk-fake-provider-key' },
    body,
  );
  if (response.statusCode !== 200)
    throw new RunFailure('transport', `direct: HTTP ${response.statusCode} ${await readText(response)}`);
  let ttftMs: number | undefined;
  let doneMs: number | undefined;
  let frames = 0;
  await readSse(response, (block) => {
    frames++;
    if (block === 'data: [DONE]') {
      doneMs = performance.now() - start;
      return;
    }
    if (ttftMs === undefined && block.includes('"content":"')) {
      const chunk = JSON.parse(block.slice(6)) as { choices: { delta: { content?: string } }[] };
      if (chunk.choices[0]?.delta.content) ttftMs = performance.now() - start;
    }
  });
  if (ttftMs === undefined || doneMs === undefined)
    throw new RunFailure('no-result', 'direct: stream ended without content or [DONE]');
  return { marker, startWall, ttftMs, doneMs, frames };
}

export interface ServiceTarget {
  baseUrl: string;
  /** e.g. /api/v1/workspaces/bench */
  ws: string;
  /** The workspace's API key (its `transport` limit is raised for the bench, see provision.ts). */
  apiKey: string;
  /** Fields added to every run's spec (`--controls off` turns the default run controls off). */
  specExtras?: Record<string, unknown>;
}

/** What the bench records of one service run, as it goes: for the event-log check after the service stops. */
export interface RunRecord {
  runId?: string;
  /** Frames of the run's events received on its stream (heartbeats excluded). */
  frames: number;
  /** The stream was read to its terminal `result`. */
  complete: boolean;
}

/** POST a run, then read its SSE stream: time from the POST's start to the first `assistant_delta` and the terminal frame. */
export async function serviceRun(target: ServiceTarget, record: RunRecord): Promise<RunSample> {
  const marker = nextMarker();
  const auth = `Bearer ${target.apiKey}`;
  const startWall = wallNow();
  const start = performance.now();
  const created = await send(
    `${target.baseUrl}${target.ws}/agent-runs`,
    'POST',
    { 'content-type': 'application/json', authorization: auth },
    JSON.stringify({ systemPrompt: 'Be brief.', prompt: `hello brun-${marker}`, ...target.specExtras }),
  );
  const createdBody = await readText(created);
  const ackMs = performance.now() - start;
  if (created.statusCode !== 202)
    throw new RunFailure('transport', `service: POST ${created.statusCode} ${createdBody}`);
  const { runId, streamUrl } = JSON.parse(createdBody) as { runId: string; streamUrl: string };
  record.runId = runId;
  const stream = await send(`${target.baseUrl}${streamUrl}`, 'GET', {
    accept: 'text/event-stream',
    authorization: auth,
  });
  const streamOpenMs = performance.now() - start;
  if (stream.statusCode !== 200)
    throw new RunFailure('transport', `service: stream ${stream.statusCode} ${await readText(stream)}`);
  let ttftMs: number | undefined;
  let doneMs: number | undefined;
  let terminal: string | undefined;
  await readSse(stream, (block) => {
    const type = eventType(block);
    if (type === undefined) return; // a heartbeat comment
    record.frames++;
    if (type === 'assistant_delta') {
      ttftMs ??= performance.now() - start;
    } else if (type === 'result' || type === 'error' || type === 'cancelled') {
      doneMs = performance.now() - start;
      terminal = type === 'result' ? undefined : block;
    }
  });
  if (terminal !== undefined)
    throw new RunFailure('no-result', `service: run ended with ${terminal.slice(0, 300)}`);
  if (ttftMs === undefined || doneMs === undefined)
    throw new RunFailure('no-result', 'service: stream ended without a delta or a terminal event');
  record.complete = true;
  return { marker, startWall, ttftMs, doneMs, ackMs, streamOpenMs, frames: record.frames };
}
