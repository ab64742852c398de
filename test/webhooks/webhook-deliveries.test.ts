import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { embeddedOnly } from '../support/deployment.ts';
import { deferred } from '../support/waits.ts';
import { startWebhookFixture, type WebhookFixture } from './webhook-fixture.ts';

describe('webhook deliveries (extensions §7)', () => {
  let hooks: WebhookFixture;
  before(async () => {
    hooks = await startWebhookFixture();
  });
  after(() => hooks.close());
  afterEach(async () => {
    // Each test's endpoints go, so no later run delivers to them.
    for (const endpoint of (await hooks.api('GET', '/webhooks')).body.webhooks)
      await hooks.api('DELETE', `/webhooks/${endpoint.id}`);
    await hooks.runs.cleanUp();
  });

  it('run.succeeded: a signed POST the receiver verifies with standardwebhooks, { type, timestamp, data }', async () => {
    const endpointId = await hooks.endpoint('/succeeded');
    const runId = await hooks.runOnce('succeeded');
    const [attempt] = await hooks.receiver.waitFor('/succeeded', 1);
    assert.ok(attempt);
    assert.equal(attempt.headers['content-type'], 'application/json');
    assert.match(String(attempt.headers['webhook-signature']), /^v1,[A-Za-z0-9+/=]+$/);
    assert.equal(attempt.verified.type, 'run.succeeded');
    assert.ok(!Number.isNaN(Date.parse(attempt.verified.timestamp)));
    const { data } = attempt.verified;
    assert.equal(data.runId, runId);
    assert.equal(data.workspace, hooks.runs.slug);
    assert.equal(data.status, 'succeeded');
    assert.equal(data.text, 'Hello there');
    assert.equal(data.error, null);
    assert.equal(data.structuredOutput, null);
    assert.equal(data.turns, 1);
    assert.ok(data.tokens && data.model);
    assert.deepEqual(data.metadata, {});
    const [delivery] = await hooks.deliveriesSettled(endpointId, 1, 'succeeded');
    assert.equal(delivery?.id, attempt.headers['webhook-id']);
    assert.equal(delivery?.event, 'run.succeeded');
    assert.equal(delivery?.runId, runId);
    assert.equal(delivery?.attempts, 1);
    assert.equal(delivery?.lastStatusCode, 200);
  });

  it('the terminal commit reads the endpoints as they are: none or only disabled ones, no delivery; one created just before (scale-out: on the API, the worker commits) gets the next run at once', async () => {
    await hooks.runOnce('succeeded');
    const disabled = await hooks.endpoint('/skip-disabled', { enabled: false });
    await hooks.runOnce('succeeded');
    const endpointId = await hooks.endpoint('/skip-after');
    const runId = await hooks.runOnce('succeeded');
    const [attempt] = await hooks.receiver.waitFor('/skip-after', 1);
    assert.equal(attempt?.verified.data.runId, runId);
    const deliveries = await hooks.deliveriesSettled(endpointId, 1, 'succeeded');
    assert.deepEqual(
      deliveries.map((delivery) => delivery.runId),
      [runId],
      'only the run that ended after it was created',
    );
    assert.deepEqual((await hooks.api('GET', `/webhooks/${disabled}/deliveries`)).body.deliveries, []);
  });

  it('run.failed carries { errorClass, message }; an endpoint subscribed to run.failed only gets that one; a disabled endpoint gets nothing', async () => {
    const all = await hooks.endpoint('/all');
    const failedOnly = await hooks.endpoint('/failed-only', { events: ['run.failed'] });
    const disabled = await hooks.endpoint('/disabled', { enabled: false });
    await hooks.runOnce('succeeded');
    const failedRun = await hooks.runOnce('failed');
    await hooks.deliveriesSettled(all, 2, 'succeeded');
    const [failedDelivery] = await hooks.deliveriesSettled(failedOnly, 1, 'succeeded');
    assert.equal(failedDelivery?.event, 'run.failed');
    const [attempt] = hooks.receiver.at('/failed-only');
    assert.equal(attempt?.verified.data.runId, failedRun);
    assert.equal(attempt?.verified.data.status, 'failed');
    assert.equal(typeof attempt?.verified.data.error.errorClass, 'string');
    assert.equal(typeof attempt?.verified.data.error.message, 'string');
    assert.deepEqual((await hooks.api('GET', `/webhooks/${disabled}/deliveries`)).body.deliveries, []);
    assert.equal(hooks.receiver.at('/disabled').length, 0);
  });

  it('run.cancelled', async () => {
    const endpointId = await hooks.endpoint('/cancelled');
    const release = deferred();
    hooks.runs.fake.enqueue({ text: ['never'], holdUntil: release.promise });
    const created = await hooks.runs.createRun({ systemPrompt: 's', prompt: 'p' });
    await hooks.runs.fake.waitForRequests(1);
    const runId = created.body.runId as string;
    const cancelled = await hooks.runs.server.request('POST', `${hooks.runs.ws}/agent-runs/${runId}/cancel`, {
      headers: hooks.runs.headers,
    });
    assert.equal(cancelled.status, 200);
    release.resolve();
    const [attempt] = await hooks.receiver.waitFor('/cancelled', 1);
    assert.equal(attempt?.verified.type, 'run.cancelled');
    assert.equal(attempt?.verified.data.runId, runId);
    assert.equal(attempt?.verified.data.status, 'cancelled');
    await hooks.deliveriesSettled(endpointId, 1, 'succeeded');
  });

  it('retries keep the webhook-id and the body: 500, 503, then 200 is one delivery of three attempts', async () => {
    const endpointId = await hooks.endpoint('/flaky', {}, { status: 500 }, { status: 503 });
    await hooks.runOnce('succeeded');
    const attempts = await hooks.receiver.waitFor('/flaky', 3);
    const ids = new Set(attempts.map((attempt) => attempt.headers['webhook-id']));
    assert.equal(ids.size, 1);
    assert.equal(new Set(attempts.map((attempt) => attempt.body)).size, 1);
    const [delivery] = await hooks.deliveriesSettled(endpointId, 1, 'succeeded');
    assert.equal(delivery?.attempts, 3);
    assert.equal(delivery?.lastStatusCode, 200);
    assert.equal(delivery?.id, [...ids][0]);
  });

  it('a failing receiver: failed after the shortened schedule (1 + 2 attempts); a manual retry sends it again with the same webhook-id', async () => {
    const failing = Array.from({ length: 3 }, () => ({ status: 500 }));
    const endpointId = await hooks.endpoint('/down', {}, ...failing, { status: 500 });
    await hooks.runOnce('succeeded');
    const [delivery] = await hooks.deliveriesSettled(endpointId, 1, 'failed');
    assert.equal(delivery?.attempts, 3);
    assert.equal(delivery?.lastStatusCode, 500);
    assert.equal(delivery?.nextAttemptAt, null);
    assert.match(String(delivery?.lastError), /500/);
    assert.equal(hooks.receiver.at('/down').length, 3);

    const retried = await hooks.api('POST', `/webhooks/${endpointId}/deliveries/${delivery?.id}/retry`);
    assert.equal(retried.status, 202);
    const attempts = await hooks.receiver.waitFor('/down', 4);
    assert.equal(attempts[3]?.headers['webhook-id'], delivery?.id);
    const [after] = await hooks.deliveriesSettled(endpointId, 1, 'failed');
    assert.equal(after?.attempts, 4);
  });

  it('a redirect is not followed: the 302 fails the attempt and its target is never called', async () => {
    const endpointId = await hooks.endpoint(
      '/moved',
      {},
      ...Array.from({ length: 3 }, () => ({ status: 302, headers: { location: '/target' } })),
    );
    hooks.receiver.expect('/target', 'whsec_dGFyZ2V0dGFyZ2V0dGFyZ2V0dGFyZ2V0dGFyZ2V0');
    await hooks.runOnce('succeeded');
    const [delivery] = await hooks.deliveriesSettled(endpointId, 1, 'failed');
    assert.equal(delivery?.lastStatusCode, 302);
    assert.equal(hooks.receiver.at('/target').length, 0);
  });

  it('the SSRF guard on every attempt: an https: URL to a loopback address AGENT_RUNS_FETCH_ALLOW does not list fails the attempt', async () => {
    const created = await hooks.api('POST', '/webhooks', { url: 'https://127.0.0.2:9/refused' });
    assert.equal(created.status, 201);
    await hooks.runOnce('succeeded');
    const [delivery] = await hooks.deliveriesSettled(created.body.id, 1, 'failed');
    assert.equal(delivery?.lastStatusCode, null);
    assert.match(String(delivery?.lastError), /loopback/);
  });

  it('the delivery log pages newest first by cursor', async () => {
    const endpointId = await hooks.endpoint('/paged');
    const runIds = [
      await hooks.runOnce('succeeded'),
      await hooks.runOnce('succeeded'),
      await hooks.runOnce('failed'),
    ];
    await hooks.deliveriesSettled(endpointId, 3, 'succeeded');
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${cursor}`;
      const page = await hooks.api('GET', `/webhooks/${endpointId}/deliveries${query}`);
      assert.equal(page.status, 200);
      seen.push(...page.body.deliveries.map((delivery: { runId: string }) => delivery.runId));
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    assert.deepEqual(seen, [...runIds].reverse());
  });

  it(
    'agent_runs_webhook_deliveries_total counts attempts by outcome (extensions §2)',
    embeddedOnly('the worker process counts the attempts it makes, on its own /metrics'),
    async () => {
      const endpointId = await hooks.endpoint('/counted', {}, { status: 500 });
      await hooks.runOnce('succeeded');
      await hooks.deliveriesSettled(endpointId, 1, 'succeeded');
      const { server } = hooks.runs;
      const metrics = await fetch(`${server.baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${server.adminToken}` },
      });
      const text = await metrics.text();
      for (const outcome of ['succeeded', 'retrying']) {
        const line = new RegExp(`^agent_runs_webhook_deliveries_total\\{outcome="${outcome}"\\} (\\d+)`, 'm');
        assert.ok(Number(line.exec(text)?.[1]) >= 1, `${outcome} counted`);
      }
    },
  );
});
