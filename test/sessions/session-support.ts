/** Shared helpers of the session tests: session routes over HTTP, live stream watching, the Anthropic wire. */
import type { RecordedRequest } from '../fakes/scripted-reply.ts';
import { startRunFixture, type FakeApi, type RunFixture } from '../support/run-fixture.ts';
import type { SseFrame } from '../support/sse-client.ts';
import type { TestResponse, TestServerOptions } from '../support/test-server.ts';
import type { RunWatch } from '../support/stream-watch.ts';

export { eventually } from '../support/waits.ts';
export type { RunWatch };

export const TERMINAL_TYPES: readonly string[] = ['result', 'error', 'cancelled'];

/** A one-pixel PNG, base64. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export interface SessionFixture extends RunFixture {
  createSession(body: Record<string, unknown>): Promise<TestResponse>;
  /** Creates a session that must be accepted (201) and returns its id. */
  newSession(body?: Record<string, unknown>): Promise<string>;
  /** POST a message; an accepted message's run is ended by `cleanUp`. */
  postMessage(sessionId: string, body: Record<string, unknown>): Promise<TestResponse>;
  /** Posts a message that must be accepted (202) and watches the run's stream. */
  startMessage(sessionId: string, body: Record<string, unknown>): Promise<RunWatch>;
  /** Posts a message, reads its run to the terminal event and returns the frames. */
  sendMessage(
    sessionId: string,
    body: Record<string, unknown>,
  ): Promise<{ runId: string; frames: SseFrame[] }>;
  getSession(sessionId: string): Promise<TestResponse>;
  replay(sessionId: string, query?: string): Promise<TestResponse>;
  list(query?: string): Promise<TestResponse>;
  endSession(sessionId: string): Promise<TestResponse>;
  runSnapshot(runId: string): Promise<TestResponse>;
  cancelRun(runId: string): Promise<TestResponse>;
  postToolResult(runId: string, body: Record<string, unknown>): Promise<TestResponse>;
}

export async function startSessionFixture(
  api: FakeApi = 'anthropic-messages',
  options: TestServerOptions = {},
): Promise<SessionFixture> {
  const fixture = await startRunFixture(api, options);
  const { server, ws, headers } = fixture;
  const call = (method: string, path: string, body?: unknown) =>
    server.request(method, `${ws}${path}`, { headers, ...(body !== undefined && { body }) });
  const postMessage = async (sessionId: string, body: Record<string, unknown>) => {
    const posted = await call('POST', `/agent-sessions/${sessionId}/messages`, body);
    if (posted.status === 202) fixture.trackRun(posted.body.runId);
    return posted;
  };
  const startMessage = async (sessionId: string, body: Record<string, unknown>) => {
    const posted = await postMessage(sessionId, body);
    if (posted.status !== 202) throw new Error(`message: ${posted.status} ${JSON.stringify(posted.body)}`);
    return fixture.watchRun(posted.body.runId);
  };
  const createSession = (body: Record<string, unknown>) => call('POST', '/agent-sessions', body);
  return {
    ...fixture,
    createSession,
    newSession: async (body = { systemPrompt: 'You are terse.' }) => {
      const created = await createSession(body);
      if (created.status !== 201)
        throw new Error(`session: ${created.status} ${JSON.stringify(created.body)}`);
      return created.body.sessionId as string;
    },
    postMessage,
    startMessage,
    sendMessage: async (sessionId, body) => {
      const run = await startMessage(sessionId, body);
      return { runId: run.runId, frames: await run.ended };
    },
    getSession: (sessionId) => call('GET', `/agent-sessions/${sessionId}`),
    replay: (sessionId, query = '') => call('GET', `/agent-sessions/${sessionId}/events${query}`),
    list: (query = '') => call('GET', `/agent-sessions${query}`),
    endSession: (sessionId) => call('DELETE', `/agent-sessions/${sessionId}`),
    runSnapshot: (runId) => call('GET', `/agent-runs/${runId}`),
    cancelRun: (runId) => call('POST', `/agent-runs/${runId}/cancel`),
    postToolResult: (runId, body) => call('POST', `/agent-runs/${runId}/tool-results`, body),
  };
}

export const terminalOf = (frames: readonly SseFrame[]) => frames.at(-1)?.data;

/* ------------------------------------------------------------------------------------------------ */
/* The Anthropic Messages wire, as the fake provider recorded it                                     */
/* ------------------------------------------------------------------------------------------------ */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider wire JSON
export type WireBlock = Record<string, any>;
export interface WireMessage {
  role: string;
  content: string | WireBlock[];
}
export interface AnthropicBody {
  system?: string | Array<{ type: string; text: string }>;
  messages: WireMessage[];
  tools?: Array<{ name: string; description?: string }>;
  thinking?: { type: string; budget_tokens?: number };
}

export function bodyOf(request: RecordedRequest | undefined): AnthropicBody {
  if (!request) throw new Error('no such provider request');
  return request.body as AnthropicBody;
}

export function blocksOf(message: WireMessage | undefined): WireBlock[] {
  if (!message) return [];
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/** A message's text blocks joined. */
export function textOfMessage(message: WireMessage | undefined): string {
  return blocksOf(message)
    .filter((block) => block.type === 'text')
    .map((block) => String(block.text))
    .join('');
}

/** The conversation as `role: text` lines, for order-sensitive comparisons. */
export function transcript(request: RecordedRequest | undefined): string[] {
  return bodyOf(request).messages.map((message) => `${message.role}: ${textOfMessage(message)}`);
}

export function systemText(request: RecordedRequest | undefined): string {
  const { system } = bodyOf(request);
  if (system === undefined) return '';
  return typeof system === 'string' ? system : system.map((part) => part.text).join('\n');
}

/** A tool_result block's content as text. */
export function toolResultText(block: WireBlock | undefined): string {
  if (!block) throw new Error('no such tool_result');
  if (typeof block.content === 'string') return block.content;
  return (block.content as WireBlock[])
    .filter((part) => part.type === 'text')
    .map((part) => String(part.text))
    .join('');
}

export const toolNames = (request: RecordedRequest | undefined) =>
  (bodyOf(request).tools ?? []).map((tool) => tool.name).sort();
