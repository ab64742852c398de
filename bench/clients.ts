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

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 1024 });

function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers, agent }, resolve);
    request.on('error', reject);
    request.end(body);
  });
}

function readText(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (text += chunk));
    response.on('end', () => resolve(text));
    response.on('error', reject);
  });
}

/** Feeds a response body to an SSE splitter until the server closes it. */
function readSse(response: IncomingMessage, onBlock: (block: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const splitter = new SseSplitter(onBlock);
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => splitter.push(chunk));
    response.on('end', resolve);
    response.on('error', reject);
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
    throw new Error(`direct: HTTP ${response.statusCode} ${await readText(response)}`);
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
    throw new Error('direct: stream ended without content or [DONE]');
  return { marker, startWall, ttftMs, doneMs, frames };
}

export interface ServiceTarget {
  baseUrl: string;
  /** e.g. /api/v1/workspaces/bench */
  ws: string;
  apiKey: string;
}

/** POST a run, then read its SSE stream: time from the POST's start to the first `assistant_delta` and the terminal frame. */
export async function serviceRun(target: ServiceTarget): Promise<RunSample> {
  const marker = nextMarker();
  const auth = `Bearer ${target.apiKey}`;
  const startWall = wallNow();
  const start = performance.now();
  const created = await send(
    `${target.baseUrl}${target.ws}/agent-runs`,
    'POST',
    { 'content-type': 'application/json', authorization: auth },
    JSON.stringify({ systemPrompt: 'Be brief.', prompt: `hello brun-${marker}` }),
  );
  const createdBody = await readText(created);
  const ackMs = performance.now() - start;
  if (created.statusCode !== 202) throw new Error(`service: POST ${created.statusCode} ${createdBody}`);
  const { streamUrl } = JSON.parse(createdBody) as { streamUrl: string };
  const stream = await send(`${target.baseUrl}${streamUrl}`, 'GET', {
    accept: 'text/event-stream',
    authorization: auth,
  });
  const streamOpenMs = performance.now() - start;
  if (stream.statusCode !== 200)
    throw new Error(`service: stream ${stream.statusCode} ${await readText(stream)}`);
  let ttftMs: number | undefined;
  let doneMs: number | undefined;
  let terminal: string | undefined;
  let frames = 0;
  await readSse(stream, (block) => {
    const type = eventType(block);
    if (type === undefined) return; // a heartbeat comment
    frames++;
    if (type === 'assistant_delta') {
      ttftMs ??= performance.now() - start;
    } else if (type === 'result' || type === 'error' || type === 'cancelled') {
      doneMs = performance.now() - start;
      terminal = type === 'result' ? undefined : block;
    }
  });
  if (terminal !== undefined) throw new Error(`service: run ended with ${terminal.slice(0, 300)}`);
  if (ttftMs === undefined || doneMs === undefined)
    throw new Error('service: stream ended without a delta or a terminal event');
  return { marker, startWall, ttftMs, doneMs, ackMs, streamOpenMs, frames };
}

async function admin(baseUrl: string, token: string, method: string, path: string, body: unknown) {
  const response = await fetch(`${baseUrl}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status !== 201)
    throw new Error(`admin ${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Through the admin API: a workspace, a Developer-API key, and the fake as its default `openai-chat` provider. */
export async function provisionWorkspace(
  baseUrl: string,
  adminToken: string,
  fakeUrl: string,
): Promise<ServiceTarget> {
  const slug = 'bench';
  // Far above the spec's per-minute defaults: the benchmark starts hundreds of runs a minute.
  const unlimited = { runStart: 1_000_000, lifecycle: 1_000_000, otherMutations: 1_000_000 };
  await admin(baseUrl, adminToken, 'POST', '/workspaces', { slug, name: 'Benchmark', rateLimits: unlimited });
  const key = await admin(baseUrl, adminToken, 'POST', `/workspaces/${slug}/api-keys`, { name: 'bench' });
  await admin(baseUrl, adminToken, 'POST', `/workspaces/${slug}/providers`, {
    provider: 'fakeopenai',
    api: 'openai-chat',
    baseUrl: fakeUrl,
    apiKey: 'sk-fake-provider-key',
    models: [{ vendorModelId: 'fake-model', label: 'Fake' }],
    isDefault: true,
  });
  return { baseUrl, ws: `/api/v1/workspaces/${slug}`, apiKey: key.key as string };
}
