import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { loadConfig, type Config } from '../../src/config.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { createTestDatabase, type TestDatabase } from '../support/engines.ts';
import { readAll, type SseFrame } from '../support/sse-client.ts';
import { bearer, createWorkspaceWithKey, serveOn, type TestServer } from '../support/test-server.ts';
import { endRun } from '../support/run-cleanup.ts';
import {
  ofType,
  toolResultBlocks,
  toolResultText,
  watchStream,
  WEATHER_TOOL,
  type RunWatch,
} from './tool-support.ts';

/**
 * One service over the shared database: it picks up unfinished runs when it starts. Close gives
 * runs 100 ms, then leaves a waiting run unfinished for the next service.
 */
const logLines: string[] = [];
const startService = (config: Config, adminToken: string) =>
  serveOn(config, adminToken, { engine: { shutdownGraceMs: 100 }, logLines });

const calls = (frames: readonly SseFrame[]) =>
  ofType(frames, 'local_tool_call').map((frame) => frame.data.data.toolUseId);
const echoes = (frames: readonly SseFrame[]) =>
  ofType(frames, 'local_tool_result_in').map((frame) => [frame.data.data.toolUseId, frame.data.data.output]);

describe(
  'a worker restart while a run waits for a client tool result loses nothing',
  { timeout: 30_000 },
  () => {
    let database: TestDatabase;
    let config: Config;
    let fake: FakeProviderServer;
    let ws: string;
    let headers: Record<string, string>;
    const adminToken = randomBytes(24).toString('base64url');
    let running: TestServer | undefined;
    /** The runs and streams a test started, ended and closed after it on the service then running. */
    const runIds: string[] = [];
    const watches: RunWatch[] = [];

    before(async () => {
      database = await createTestDatabase('sqlite');
      fake = await startFakeAnthropic();
      config = loadConfig({
        PORT: '0',
        DATABASE_URL: database.config.url,
        AGENT_RUNS_ADMIN_TOKEN: adminToken,
        AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
      });
      const setup = await startService(config, adminToken);
      try {
        const workspace = await createWorkspaceWithKey(setup, 'restart');
        ws = workspace.ws;
        headers = bearer(workspace.key);
        const provider = await setup.admin('POST', `/workspaces/${workspace.slug}/providers`, {
          provider: 'anthropic',
          api: 'anthropic-messages',
          baseUrl: fake.url,
          apiKey: 'sk-fake-provider-key',
          models: [{ vendorModelId: 'fake-model', label: 'Fake' }],
          isDefault: true,
        });
        assert.equal(provider.status, 201, JSON.stringify(provider.body));
      } finally {
        await setup.close();
      }
    });
    after(async () => {
      await running?.close();
      await fake.close();
      await database.drop();
    });
    afterEach(async () => {
      for (const watch of watches.splice(0)) watch.close();
      const server = running;
      try {
        if (server) await Promise.all(runIds.map((runId) => endRun({ server, ws, runId, headers })));
      } finally {
        runIds.length = 0;
        fake.reset();
      }
    });

    /** Stops the current service (the waiting run stays unfinished) and starts the next one on the same database. */
    async function restart(): Promise<TestServer> {
      await running?.close();
      running = await startService(config, adminToken);
      return running;
    }

    const streamUrl = (server: TestServer, runId: string) =>
      `${server.baseUrl}${ws}/agent-runs/${runId}/stream`;
    const post = (server: TestServer, runId: string, body: unknown) =>
      server.request('POST', `${ws}/agent-runs/${runId}/tool-results`, { body, headers });
    /** Creates a run on `server` that must be accepted, and watches its stream. */
    async function startRun(server: TestServer, body: Record<string, unknown>): Promise<RunWatch> {
      const created = await server.request('POST', `${ws}/agent-runs`, { body, headers });
      assert.equal(created.status, 202, JSON.stringify(created.body));
      const runId: string = created.body.runId;
      runIds.push(runId);
      const watch = await watchStream(streamUrl(server, runId), headers, runId);
      watches.push(watch);
      return watch;
    }

    it('the result posted to the restarted service is accepted, the stream continues to the final result, no call is published twice', async () => {
      fake.enqueue(
        { toolCalls: [{ id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
        { text: ['Sunny.'] },
      );
      const first = await restart();
      const before = await startRun(first, { systemPrompt: 's', prompt: 'weather?', tools: [WEATHER_TOOL] });
      const { runId } = before;
      const call = await before.waitForType('local_tool_call');

      const second = await restart();
      const failures = logLines.filter((line) => /"level":50/.test(line));
      assert.deepEqual(failures, [], 'a run handed over at shutdown is not logged as a failure');
      const seenBefore = await before.ended;
      assert.equal(
        seenBefore.at(-1)?.data.type,
        'local_tool_call',
        'the first service ended without a terminal event',
      );
      const posted = await post(second, runId, { toolUseId: 'toolu_1', result: '21C and sunny' });
      assert.equal(posted.status, 200, JSON.stringify(posted.body));

      const continued = await readAll(`${streamUrl(second, runId)}?lastSeq=${call.data.seq}`, headers);
      assert.deepEqual(
        continued.map((frame) => frame.data.type),
        ['local_tool_result_in', 'assistant_delta', 'assistant_message', 'result'],
      );
      assert.equal(continued.at(-1)?.data.data.text, 'Sunny.');
      assert.equal(continued.at(-1)?.data.data.turns, 2, 'usage of the turn before the restart is kept');

      const log = await readAll(streamUrl(second, runId), headers);
      assert.deepEqual(calls(log), ['toolu_1']);
      assert.deepEqual(echoes(log), [['toolu_1', '21C and sunny']]);
      assert.deepEqual(
        log.map((frame) => frame.data.seq),
        log.map((_, index) => index + 1),
        'seq continues without gaps or repeats',
      );
      assert.equal(fake.requests.length, 2);
      const [block] = toolResultBlocks(fake.requests[1]);
      assert.equal(block?.tool_use_id, 'toolu_1');
      assert.equal(toolResultText(block), '21C and sunny');

      const duplicate = await post(second, runId, { toolUseId: 'toolu_1', result: 'again' });
      assert.equal(duplicate.status, 409);
      assert.equal(duplicate.body.error, 'run_terminal');
    });

    it('a round interrupted after its first answer resumes with the second call, each call and answer appearing once', async () => {
      fake.enqueue(
        {
          toolCalls: [
            { id: 'toolu_a', name: 'get_weather', input: { city: 'Oslo' } },
            { id: 'toolu_b', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        { text: ['Cold and warm.'] },
      );
      const first = await restart();
      const before = await startRun(first, {
        systemPrompt: 's',
        prompt: 'two cities',
        tools: [WEATHER_TOOL],
      });
      const { runId } = before;
      await before.waitForType('local_tool_call');
      assert.equal((await post(first, runId, { toolUseId: 'toolu_a', result: 'cold' })).status, 200);
      await before.waitFor(
        (frame) => frame.data.type === 'local_tool_call' && frame.data.data.toolUseId === 'toolu_b',
      );

      const second = await restart();
      await before.ended;
      const answered = await post(second, runId, { toolUseId: 'toolu_a', result: 'cold again' });
      assert.equal(answered.status, 404, 'the first call stays answered across the restart');
      assert.equal(answered.body.error, 'unknown_tool_use');
      assert.equal((await post(second, runId, { toolUseId: 'toolu_b', result: 'warm' })).status, 200);

      const log = await readAll(streamUrl(second, runId), headers);
      assert.equal(log.at(-1)?.data.type, 'result');
      assert.equal(log.at(-1)?.data.data.text, 'Cold and warm.');
      assert.deepEqual(calls(log), ['toolu_a', 'toolu_b']);
      assert.deepEqual(echoes(log), [
        ['toolu_a', 'cold'],
        ['toolu_b', 'warm'],
      ]);
      assert.equal(fake.requests.length, 2);
      assert.deepEqual(toolResultBlocks(fake.requests[1]).map(toolResultText), ['cold', 'warm']);
    });
  },
);
