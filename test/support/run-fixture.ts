import assert from 'node:assert/strict';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import { startFakeGoogle } from '../fakes/fake-google.ts';
import { startFakeOpenAIChat } from '../fakes/fake-openai-chat.ts';
import { startFakeOpenAIResponses } from '../fakes/fake-openai-responses.ts';
import type { FakeProviderServer, ScriptedReply } from '../fakes/scripted-reply.ts';
import { TestLeftovers } from './run-cleanup.ts';
import { openSse, readAll, type SseFrame, type SseStream } from './sse-client.ts';
import { watchStream, type RunWatch } from './stream-watch.ts';
import {
  bearer,
  createWorkspaceWithKey,
  startTestServer,
  type TestServer,
  type TestServerOptions,
} from './test-server.ts';

/** Each protocol's fake provider and the provider id its workspace connection is registered under. */
const FAKES = {
  'openai-chat': { provider: 'fakeopenai', start: startFakeOpenAIChat },
  'anthropic-messages': { provider: 'anthropic', start: startFakeAnthropic },
  'openai-responses': { provider: 'openai', start: startFakeOpenAIResponses },
  'google-generative-ai': {
    provider: 'google',
    start: (script?: ScriptedReply[]) => startFakeGoogle(script),
  },
} as const;

export type FakeApi = keyof typeof FAKES;

type ProvisionedWorkspace = Awaited<ReturnType<typeof createWorkspaceWithKey>>;

export interface RunFixtureOptions extends TestServerOptions {
  script?: ScriptedReply[];
  /** The connection's model and key (defaults `fake-model`, `sk-fake-provider-key`): some SDKs map settings per model id. */
  model?: { vendorModelId?: string; apiKey?: string };
}

export interface RunFixture {
  server: TestServer;
  fake: FakeProviderServer;
  ws: string;
  slug: string;
  key: string;
  headers: Record<string, string>;
  /** POST {ws}/agent-runs; returns the response (an accepted run is ended by `cleanUp`). */
  createRun(
    body: Record<string, unknown>,
    headers?: Record<string, string>,
  ): ReturnType<TestServer['request']>;
  /** Creates a run that must be accepted, reads its stream to the end, and returns the frames. */
  runToEnd(body: Record<string, unknown>): Promise<{ runId: string; frames: SseFrame[] }>;
  /** Creates a run that must be accepted and reads its stream in the background. */
  startRun(body: Record<string, unknown>): Promise<RunWatch>;
  /** Reads the stream of a run of this workspace in the background (closed by `cleanUp`). */
  watchRun(runId: string): Promise<RunWatch>;
  /** Opens the stream of a run of this workspace (closed by `cleanUp`). */
  openStream(
    runId: string,
    options?: { query?: string; headers?: Record<string, string> },
  ): Promise<SseStream>;
  /** A run of this workspace created some other way than `createRun`, for `cleanUp` to end. */
  trackRun(runId: string, headers?: Record<string, string>): void;
  streamUrl(runId: string, query?: string): string;
  /**
   * What every test of a shared fixture does last (in `afterEach`): closes the streams it opened,
   * ends the runs it left going, and resets the fake provider, so nothing reaches the next test.
   */
  cleanUp(): Promise<void>;
  /** Cleans up, then stops the service and the fake. */
  close(): Promise<void>;
}

/**
 * The service on port 0 with one workspace whose default model is served by a
 * fake provider speaking the real wire protocol on loopback.
 */
export async function startRunFixture(
  api: FakeApi = 'openai-chat',
  options: RunFixtureOptions = {},
): Promise<RunFixture> {
  const fake = await FAKES[api].start(options.script);
  let server: TestServer | undefined;
  let workspace: ProvisionedWorkspace;
  try {
    server = await startTestServer({
      ...options,
      engine: { retryPolicy: { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 200 }, ...options.engine },
    });
    workspace = await provisionWorkspace(server, api, fake.url, options.model);
  } catch (error) {
    await server?.close();
    await fake.close();
    throw error;
  }
  return fixtureOn(server, fake, workspace);
}

/** Workspace `acme` with one key and the fake as its default provider. */
async function provisionWorkspace(
  server: TestServer,
  api: FakeApi,
  fakeUrl: string,
  model: RunFixtureOptions['model'],
): Promise<ProvisionedWorkspace> {
  // Suites create many runs quickly; the rate-limit suite checks the spec's default maxima itself.
  const workspace = await createWorkspaceWithKey(server, 'acme', {
    rateLimits: { runStart: 100_000, lifecycle: 100_000, otherMutations: 100_000 },
  });
  const provider = await server.admin('POST', `/workspaces/${workspace.slug}/providers`, {
    provider: FAKES[api].provider,
    api,
    baseUrl: fakeUrl,
    apiKey: model?.apiKey ?? 'sk-fake-provider-key',
    models: [{ vendorModelId: model?.vendorModelId ?? 'fake-model', label: 'Fake' }],
    isDefault: true,
  });
  if (provider.status !== 201)
    throw new Error(`provider: ${provider.status} ${JSON.stringify(provider.body)}`);
  return workspace;
}

function fixtureOn(
  server: TestServer,
  fake: FakeProviderServer,
  { slug, key, ws }: ProvisionedWorkspace,
): RunFixture {
  const headers = bearer(key);
  const streamUrl = (runId: string, query = '') =>
    `${server.baseUrl}${ws}/agent-runs/${runId}/stream${query}`;
  const leftovers = new TestLeftovers();
  const trackRun: RunFixture['trackRun'] = (runId, runHeaders = headers) =>
    leftovers.trackRun({ server, ws, runId, headers: runHeaders });
  const createRun: RunFixture['createRun'] = async (body, extra = {}) => {
    const runHeaders = { ...headers, ...extra };
    const created = await server.request('POST', `${ws}/agent-runs`, { body, headers: runHeaders });
    if (created.status === 202) trackRun(created.body.runId, runHeaders);
    return created;
  };
  const watchRun: RunFixture['watchRun'] = async (runId) =>
    leftovers.trackStream(await watchStream(streamUrl(runId), headers, runId));
  const cleanUp = async () => {
    // Replies a failed test left held go on (a cancelled run still finishes its turn), and what the
    // runs ask while they end is forgotten with the rest.
    fake.reset();
    try {
      await leftovers.cleanUp();
    } finally {
      fake.reset();
    }
  };
  const acceptedRun = async (body: Record<string, unknown>): Promise<string> => {
    const created = await createRun(body);
    if (created.status !== 202) throw new Error(`run: ${created.status} ${JSON.stringify(created.body)}`);
    return created.body.runId as string;
  };
  return {
    server,
    fake,
    ws,
    slug,
    key,
    headers,
    createRun,
    streamUrl,
    runToEnd: async (body) => {
      const runId = await acceptedRun(body);
      return { runId, frames: await readAll(streamUrl(runId), headers) };
    },
    startRun: async (body) => watchRun(await acceptedRun(body)),
    watchRun,
    openStream: async (runId, options = {}) =>
      leftovers.trackStream(await openSse(streamUrl(runId, options.query), options.headers ?? headers)),
    trackRun,
    cleanUp,
    close: async () => {
      try {
        await cleanUp();
      } finally {
        await server.close();
        await fake.close();
      }
    },
  };
}

export const types = (frames: SseFrame[]) => frames.map((frame) => frame.data.type);
export const textOf = (frames: SseFrame[]) =>
  frames
    .filter((frame) => frame.data.type === 'assistant_delta')
    .map((frame) => frame.data.data.text)
    .join('');
export const ofType = (frames: readonly SseFrame[], type: string) =>
  frames.filter((frame) => frame.data.type === type);

/**
 * The run's stream held one event, an `error` with these fields (others unchecked); returns its data.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- event JSON
export function onlyError(frames: SseFrame[], expected: Record<string, unknown>): Record<string, any> {
  assert.deepEqual(types(frames), ['error']);
  const error = frames[0]?.data.data ?? {};
  for (const [field, value] of Object.entries(expected)) assert.deepEqual(error[field], value, field);
  return error;
}

/**
 * The events of a plain 'Hello' + ', world.' reply whose usage the fake reported as
 * 100 input (60 cached), 20 output (5 reasoning): two deltas, one assistant_message
 * ending the turn without tool calls, and a result with the text, one turn, those tokens and no
 * reasoning label (no level was requested).
 */
export function assertPlainHelloWorldRun(frames: SseFrame[], vendorModelId: string): void {
  assert.deepEqual(types(frames), ['assistant_delta', 'assistant_delta', 'assistant_message', 'result']);
  assert.equal(textOf(frames), 'Hello, world.');
  const message = frames[2]?.data.data;
  assert.equal(message?.text, 'Hello, world.');
  assert.equal(message?.finishReason, 'end_turn');
  assert.equal(message?.toolCalls, undefined);
  const result = frames[3]?.data.data;
  assert.equal(result?.text, 'Hello, world.');
  assert.equal(result?.turns, 1);
  assert.deepEqual(result?.tokens, {
    inputTokens: 100,
    cachedTokens: 60,
    reasoningTokens: 5,
    outputTokens: 20,
  });
  assert.equal(result?.model.vendorModelId, vendorModelId);
  assert.equal(
    'reasoningEffort' in (result?.model ?? {}),
    false,
    'no level asked for: reasoningEffort omitted',
  );
}

/**
 * The truncation contract for a 'Once upon ' + 'a time' reply cut at max_tokens: the deltas, an
 * assistant_message with finishReason max_tokens, then an error of class truncation carrying the
 * partial text, not retryable.
 */
export function assertTruncatedOnceUponATime(frames: SseFrame[]): void {
  assert.deepEqual(types(frames), ['assistant_delta', 'assistant_delta', 'assistant_message', 'error']);
  assert.equal(frames[2]?.data.data.finishReason, 'max_tokens');
  assert.equal(frames[2]?.data.data.text, 'Once upon a time');
  const error = frames[3]?.data.data;
  assert.equal(error?.errorClass, 'truncation');
  assert.equal(error?.code, 'truncation');
  assert.equal(error?.finishReason, 'max_tokens');
  assert.equal(error?.partialText, 'Once upon a time');
  assert.equal(error?.retryable, false);
}
