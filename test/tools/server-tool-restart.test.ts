import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { loadConfig, type Config } from '../../src/config.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { createTestDatabase, type TestDatabase } from '../support/engines.ts';
import { answerJson, startHttpToolServer, type HttpToolServer } from '../support/http-tool-server.ts';
import { endRun } from '../support/run-cleanup.ts';
import { readAll, type SseFrame } from '../support/sse-client.ts';
import { bearer, createWorkspaceWithKey, serveOn, type TestServer } from '../support/test-server.ts';
import {
  ofType,
  toolResultBlocks,
  toolResultText,
  watchStream,
  WEATHER_TOOL,
  type RunWatch,
} from './tool-support.ts';

const startService = (config: Config, adminToken: string) =>
  serveOn(config, adminToken, { engine: { shutdownGraceMs: 100 } });

const types = (frames: readonly SseFrame[]) => frames.map((frame) => frame.data.type as string);

describe(
  'exactly once: a server-resolved call is never executed again after a restart',
  { timeout: 60_000 },
  () => {
    let database: TestDatabase;
    let config: Config;
    let fake: FakeProviderServer;
    let tools: HttpToolServer;
    let ws: string;
    let slug: string;
    let headers: Record<string, string>;
    const adminToken = randomBytes(24).toString('base64url');
    let running: TestServer | undefined;
    const runIds: string[] = [];
    const watches: RunWatch[] = [];

    before(async () => {
      database = await createTestDatabase('sqlite');
      fake = await startFakeAnthropic();
      tools = await startHttpToolServer();
      config = loadConfig({
        PORT: '0',
        DATABASE_URL: database.config.url,
        AGENT_RUNS_ADMIN_TOKEN: adminToken,
        AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
        AGENT_RUNS_FETCH_ALLOW: '127.0.0.0/8',
      });
      const setup = await startService(config, adminToken);
      try {
        const workspace = await createWorkspaceWithKey(setup, 'exactly-once');
        ws = workspace.ws;
        slug = workspace.slug;
        headers = bearer(workspace.key);
        const provider = await setup.admin('POST', `/workspaces/${slug}/providers`, {
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
      await tools.close();
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

    async function restart(): Promise<TestServer> {
      await running?.close();
      running = await startService(config, adminToken);
      return running;
    }

    const streamUrl = (server: TestServer, runId: string) =>
      `${server.baseUrl}${ws}/agent-runs/${runId}/stream`;

    async function startRun(server: TestServer, body: Record<string, unknown>): Promise<RunWatch> {
      const created = await server.request('POST', `${ws}/agent-runs`, { body, headers });
      assert.equal(created.status, 202, JSON.stringify(created.body));
      runIds.push(created.body.runId);
      const watch = await watchStream(streamUrl(server, created.body.runId), headers, created.body.runId);
      watches.push(watch);
      return watch;
    }

    async function workspaceTool(server: TestServer, name: string, path: string): Promise<string> {
      const created = await server.admin('POST', `/workspaces/${slug}/tools`, {
        name,
        http: { url: tools.url(path) },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body.id as string;
    }

    it('the worker stops while a slow HTTP tool runs: the restarted service does not call it again, and the model gets an interrupted-outcome-unknown result', async () => {
      tools.route('/slow_charge', () => {
        // Holds the request until the service drops it.
      });
      const first = await restart();
      const id = await workspaceTool(first, 'charge_card', '/slow_charge');
      fake.enqueue(
        { toolCalls: [{ id: 'toolu_charge', name: 'charge_card', input: {} }] },
        { text: ['I could not confirm the charge.'] },
      );
      const watch = await startRun(first, {
        systemPrompt: 's',
        prompt: 'charge it',
        tools: [{ kind: 'svc', id }],
      });
      await watch.waitForType('tool_call');
      await tools.until(
        (requests) => requests.some((r) => r.url === '/slow_charge'),
        'the call reached the tool server',
      );

      const second = await restart();
      await tools.until(
        (requests) => requests.some((r) => r.url === '/slow_charge' && r.closedByClient),
        'the stopped worker dropped its call',
      );
      const frames = await readAll(streamUrl(second, watch.runId), headers);
      assert.equal(types(frames).at(-1), 'result');
      assert.equal(tools.requestsTo('/slow_charge').length, 1, 'the tool server saw exactly one request');
      assert.equal(ofType(frames, 'tool_call').length, 1);
      const result = ofType(frames, 'tool_result');
      assert.equal(result.length, 1);
      assert.equal(result[0]?.data.data.ok, false);
      assert.match(result[0]?.data.data.summary, /interrupted/);
      const block = toolResultBlocks(fake.requests.at(-1))[0];
      assert.equal(block?.is_error, true);
      assert.match(toolResultText(block), /outcome is unknown/);
      assert.deepEqual(
        frames.map((frame) => frame.data.seq),
        frames.map((_, index) => index + 1),
        'seq continues without gaps or repeats',
      );
    });

    it('a round of a server call and a client call parked across a restart: the recorded server outcome is reused, not re-executed, and each tool_result is streamed once', async () => {
      tools.route('/lookup', answerJson({ found: 'the answer' }));
      const first = await restart();
      const id = await workspaceTool(first, 'lookup', '/lookup');
      fake.enqueue(
        {
          toolCalls: [
            { id: 'toolu_lookup', name: 'lookup', input: {} },
            { id: 'toolu_weather', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        { text: ['Done.'] },
      );
      const before = tools.requestsTo('/lookup').length;
      const watch = await startRun(first, {
        systemPrompt: 's',
        prompt: 'p',
        tools: [{ kind: 'svc', id }, WEATHER_TOOL],
      });
      await watch.waitForType('local_tool_call');
      const second = await restart();
      const posted = await second.request('POST', `${ws}/agent-runs/${watch.runId}/tool-results`, {
        body: { toolUseId: 'toolu_weather', result: '21C' },
        headers,
      });
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      const frames = await readAll(streamUrl(second, watch.runId), headers);
      assert.equal(types(frames).at(-1), 'result');
      assert.equal(tools.requestsTo('/lookup').length - before, 1, 'executed once');
      assert.equal(ofType(frames, 'tool_result').length, 1, 'its tool_result is not streamed twice');
      const blocks = toolResultBlocks(fake.requests.at(-1));
      assert.deepEqual(
        blocks.map((block) => [block.tool_use_id, toolResultText(block)]),
        [
          ['toolu_lookup', JSON.stringify({ found: 'the answer' })],
          ['toolu_weather', '21C'],
        ],
      );
    });
  },
);
