import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { openSse, readToEnd, type SseFrame } from '../support/sse-client.ts';
import { serveOn, type TestServer } from '../support/test-server.ts';
import { provisionAcme } from './cluster.ts';
import { startPrivatePostgres, type PrivateServer } from './private-servers.ts';

/** Extensions §1: a run may end for want of its database only after the limit (5 minutes; 2 s here). */
const LIMIT_MS = 2000;

describe('a run whose database stays away longer than the limit', () => {
  let postgres: PrivateServer;
  let fake: FakeProviderServer;
  let server: TestServer;
  let headers: Record<string, string>;

  before(async () => {
    postgres = await startPrivatePostgres();
    fake = await startFakeAnthropic();
    const adminToken = randomBytes(24).toString('base64url');
    const config = loadConfig({
      PORT: '0',
      DATABASE_URL: postgres.url,
      AGENT_RUNS_ADMIN_TOKEN: adminToken,
      AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
    });
    server = await serveOn(config, adminToken, { engine: { storeOutageLimitMs: LIMIT_MS } });
    headers = { authorization: `Bearer ${await provisionAcme(server.baseUrl, adminToken, fake.url)}` };
  });
  after(async () => {
    await server?.close();
    await fake?.close();
    await postgres?.destroy();
  });

  it('ends failed with errorClass unavailable (retryable) once that can be written, after its last durable event; the stream stays open meanwhile', async () => {
    fake.enqueue({ text: Array.from({ length: 40 }, (_, index) => `w${index} `), chunkIntervalMs: 100 });
    const created = await server.request('POST', '/api/v1/workspaces/acme/agent-runs', {
      headers,
      body: { systemPrompt: 's', prompt: 'long' },
    });
    assert.equal(created.status, 202);
    const url = `${server.baseUrl}${created.body.streamUrl}`;
    const stream = await openSse(url, headers);
    const frames: SseFrame[] = [];
    for await (const frame of stream.frames) {
      frames.push(frame);
      if (frames.filter((seen) => seen.data.type === 'assistant_delta').length === 3) break;
    }
    const resumed = await openSse(url, { ...headers, 'last-event-id': String(frames.at(-1)?.data.seq) });
    const rest = readToEnd(resumed, url, { timeoutMs: 60_000 });

    await postgres.stop();
    // Twice the limit without the database: the run gives up while it is still away.
    await sleep(2 * LIMIT_MS);
    await postgres.start();
    const all = [...frames, ...(await rest)];
    const terminal = all.at(-1)?.data;
    assert.equal(terminal?.type, 'error', JSON.stringify(terminal));
    assert.equal(terminal?.data.errorClass, 'unavailable');
    assert.equal(terminal?.data.retryable, true);
    assert.deepEqual(
      all.map((frame) => frame.data.seq),
      all.map((_, index) => index + 1),
      'no event lost or repeated',
    );
  });
});
