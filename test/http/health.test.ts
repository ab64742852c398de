import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { embeddedOnly } from '../support/deployment.ts';
import { openSse, readToEnd } from '../support/sse-client.ts';

/** Extensions §1: liveness, readiness with its checks, and `503 stopping` while a stopping process drains. */
describe('health and readiness', () => {
  let fixture: RunFixture;
  /** What readiness says of Redis on this deployment. */
  let redisCheck: string;

  before(async () => {
    // A short grace: the run in flight at the stop is handed over after it.
    fixture = await startRunFixture('openai-chat', { engine: { shutdownGraceMs: 1500 } });
    redisCheck = fixture.server.service.resources.config.redisUrl ? 'ok' : 'not_configured';
  });
  // The last test stops the service itself; closing again waits for that stop.
  after(() => fixture.close());

  it('GET /healthz is 200 { status: "ok" }; GET /readyz is 200 { status: "ready", checks } and names no host, version or error; neither is metered', async () => {
    const live = await fixture.server.request('GET', '/healthz');
    assert.equal(live.status, 200);
    assert.deepEqual(live.body, { status: 'ok' });
    const ready = await fixture.server.request('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ready', checks: { database: 'ok', redis: redisCheck } });
    for (const answer of [live, ready]) assert.equal(answer.headers.get('x-ratelimit-limit'), null);
  });

  it(
    'after SIGTERM, /readyz answers 503 stopping while a run drains; open streams end at once and new ones are 503 unavailable with Retry-After',
    embeddedOnly(
      'the process that drains runs is the worker, which serves no HTTP there (its /readyz comes with the management port)',
    ),
    async () => {
      fixture.fake.enqueue({ text: Array.from({ length: 200 }, () => 'x '), chunkIntervalMs: 50 });
      const created = await fixture.server.request('POST', `${fixture.ws}/agent-runs`, {
        headers: fixture.headers,
        body: { systemPrompt: 's', prompt: 'long' },
      });
      assert.equal(created.status, 202);
      const url = fixture.streamUrl(created.body.runId);
      const stream = await openSse(url, fixture.headers);
      const frames = [];
      for await (const frame of stream.frames) {
        frames.push(frame);
        if (frame.data.type === 'assistant_delta') break;
      }
      const open = await openSse(url, {
        ...fixture.headers,
        'last-event-id': String(frames.at(-1)?.data.seq),
      });

      const stopping = fixture.server.service.close();
      // The stream a client holds ends without its terminal event (the client resumes elsewhere).
      const rest = await readToEnd(open, url);
      assert.ok(
        rest.every((frame) => !['result', 'error', 'cancelled'].includes(frame.data.type)),
        'the stream ended before the run did',
      );
      const ready = await fixture.server.request('GET', '/readyz');
      assert.equal(ready.status, 503);
      assert.deepEqual(ready.body, { status: 'stopping', checks: { database: 'ok', redis: redisCheck } });
      const refused = await fixture.server.request(
        'GET',
        `${fixture.ws}/agent-runs/${created.body.runId}/stream`,
        {
          headers: fixture.headers,
        },
      );
      assert.equal(refused.status, 503);
      assert.equal(refused.body.error, 'unavailable');
      assert.ok(Number(refused.headers.get('retry-after')) > 0, 'Retry-After');
      await stopping;
    },
  );
});
