import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AgentRunsClient, type RunEvent } from '@agent-runs/client';
import { loadConfig } from '../../src/config.ts';
import { createTestDatabase, type TestDatabase } from '../support/engines.ts';
import { createWorkspaceWithKey, serveOn, type TestServer } from '../support/test-server.ts';
import { withCap, WAIT_CAP_MS } from '../support/waits.ts';
import { SLOW_MODEL, wordsPrompt } from './client-fixture.ts';
import { startCuttingProxy, type CuttingProxy } from './cutting-proxy.ts';

describe('runs.stream across a service restart', () => {
  let database: TestDatabase;
  let running: TestServer | undefined;
  let proxy: CuttingProxy;
  let startService: () => Promise<TestServer>;
  before(async () => {
    database = await createTestDatabase('sqlite');
    const adminToken = randomBytes(24).toString('base64url');
    const config = loadConfig({
      PORT: '0',
      DATABASE_URL: database.config.url,
      AGENT_RUNS_ADMIN_TOKEN: adminToken,
      AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
    });
    startService = () => serveOn(config, adminToken, { dev: true, engine: { shutdownGraceMs: 100 } });
    running = await startService();
    proxy = await startCuttingProxy(
      () => running?.baseUrl ?? 'http://127.0.0.1:9',
      () => ({ action: 'pass' }),
    );
  });
  after(async () => {
    await proxy?.close();
    await running?.close();
    await database?.drop();
  });

  it('the stream the old process closes goes on from the new one: every seq once, in order, to the terminal event', async () => {
    const first = running as TestServer;
    assert.equal(
      (await first.admin('POST', '/offerings', { provider: 'mock', vendorModelId: 'slow-echo' })).status,
      201,
    );
    const { key } = await createWorkspaceWithKey(first, 'sdk-restart');
    const client = new AgentRunsClient({ baseUrl: proxy.baseUrl, workspace: 'sdk-restart', credential: key });
    const { runId } = await client.runs.create({
      systemPrompt: 's',
      modelId: SLOW_MODEL,
      prompt: wordsPrompt(80),
    });

    const events: RunEvent[] = [];
    let restarted: Promise<void> | undefined;
    const read = (async () => {
      for await (const event of client.runs.stream(runId, { reconnect: { initialDelayMs: 50 } })) {
        events.push(event);
        if (events.length === 10) {
          restarted = (async () => {
            await first.close();
            running = await startService();
          })();
        }
      }
    })();
    await withCap(read, WAIT_CAP_MS * 2, () => `the stream of ${runId} did not end; ${events.length} events`);
    await restarted;

    assert.deepEqual(
      events.map((event) => event.seq),
      events.map((_, index) => index + 1),
    );
    const terminal = events.at(-1);
    assert.equal(terminal?.type, 'result');
    if (terminal?.type === 'result') assert.equal(terminal.data.text, `You said: ${wordsPrompt(80)}`);
    assert.ok(proxy.connections >= 2, `${proxy.connections} connections`);
  });
});
