import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { AgentRunsClient, IdempotencyKeyReusedError } from '@agent-runs/client';
import { startMisbehavingService, type Misbehavior, type MisbehavingService } from './misbehaving-service.ts';

const UNAVAILABLE: Misbehavior = {
  answer: 503,
  headers: { 'retry-after': '0' },
  body: { error: 'unavailable', message: 'the database does not answer' },
};
const IN_USE: Misbehavior = {
  answer: 409,
  headers: { 'retry-after': '0' },
  body: { error: 'idempotency_key_in_use', message: 'still being processed' },
};
const RUN_CREATED: Misbehavior = { answer: 202, body: { runId: 'run_1', streamUrl: '/s' } };
const SESSION_CREATED: Misbehavior = { answer: 201, body: { sessionId: 'ses_1' } };

let service: MisbehavingService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function clientAnswering(planFor: (request: number) => Misbehavior) {
  service = await startMisbehavingService(planFor);
  const client = new AgentRunsClient({ baseUrl: service.baseUrl, workspace: 'acme', credential: 'svc_test' });
  return { client, requests: service.requests };
}

const keysOf = (requests: MisbehavingService['requests']) =>
  requests.map((request) => request.headers['idempotency-key']);

/** Extensions §5: "The client SDK sends a key on every creation by default, so its retries are safe." */
describe('client: Idempotency-Key on creations by default', () => {
  it('runs.create sends a generated key, the same on each retry, and a new one on the next call', async () => {
    const { client, requests } = await clientAnswering((n) =>
      n <= 2 || n === 4 ? UNAVAILABLE : RUN_CREATED,
    );
    assert.equal((await client.runs.create({ prompt: 'hi' })).runId, 'run_1');
    assert.equal((await client.runs.create({ prompt: 'hi' })).runId, 'run_1');
    const keys = keysOf(requests);
    assert.equal(keys.length, 5);
    assert.match(String(keys[0]), /^[0-9a-f-]{36}$/);
    assert.deepEqual(keys.slice(0, 3), [keys[0], keys[0], keys[0]]);
    assert.notEqual(keys[3], keys[0]);
    assert.equal(keys[4], keys[3]);
  });

  it('sessions.create and sessions.message send a generated key, reused on their retries', async () => {
    const { client, requests } = await clientAnswering((n) =>
      n === 1 ? UNAVAILABLE : n === 2 ? SESSION_CREATED : n === 3 ? UNAVAILABLE : RUN_CREATED,
    );
    await client.sessions.create({ systemPrompt: 's' });
    await client.sessions.message('ses_1', { prompt: 'hi' });
    const keys = keysOf(requests);
    assert.equal(keys[0], keys[1]);
    assert.equal(keys[2], keys[3]);
    assert.notEqual(keys[0], keys[2]);
    assert.ok(keys.every((key) => typeof key === 'string' && key.length > 0));
  });

  it("the caller's key is sent as given; a retry meeting its own first attempt in progress (409) waits and gets the answer", async () => {
    const { client, requests } = await clientAnswering((n) =>
      n === 1 ? { drop: true } : n === 2 ? IN_USE : RUN_CREATED,
    );
    assert.equal((await client.runs.create({ prompt: 'hi' }, { idempotencyKey: 'order-42' })).runId, 'run_1');
    assert.deepEqual(keysOf(requests), ['order-42', 'order-42', 'order-42']);
  });

  it('idempotency_key_reused surfaces as IdempotencyKeyReusedError, not retried', async () => {
    const { client, requests } = await clientAnswering(() => ({
      answer: 422,
      body: { error: 'idempotency_key_reused', message: 'another body' },
    }));
    await assert.rejects(
      client.runs.create({ prompt: 'hi' }, { idempotencyKey: 'k' }),
      IdempotencyKeyReusedError,
    );
    assert.equal(requests.length, 1);
  });
});
