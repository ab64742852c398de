import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import {
  AgentRunsClient,
  AgentRunsError,
  ConflictError,
  ConnectionError,
  InvalidRequestError,
  RateLimitError,
  StorageUnavailableError,
  TimeoutError,
  type AgentRunsClientOptions,
} from '@agent-runs/client';
import { retryDelayMs, serverDelayMs } from '../../packages/client/src/retry-policy.ts';
import { startMisbehavingService, type Misbehavior, type MisbehavingService } from './misbehaving-service.ts';

const UNAVAILABLE: Misbehavior = {
  answer: 503,
  headers: { 'retry-after': '0' },
  body: { error: 'unavailable', message: 'the database does not answer' },
};
const MODELS: Misbehavior = { answer: 200, body: { models: [] } };
const RUN_CREATED: Misbehavior = { answer: 202, body: { runId: 'run_1', streamUrl: '/s' } };

let service: MisbehavingService | undefined;
async function closeService(): Promise<void> {
  await service?.close();
  service = undefined;
}

async function serve(planFor: (request: number) => Misbehavior): Promise<MisbehavingService> {
  service = await startMisbehavingService(planFor);
  return service;
}

function clientOf(
  target: MisbehavingService,
  options: Partial<AgentRunsClientOptions> = {},
): AgentRunsClient {
  return new AgentRunsClient({
    baseUrl: target.baseUrl,
    workspace: 'acme',
    credential: 'svc_test',
    ...options,
  });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected the call to fail, but it succeeded');
}

describe('client transport: retries (maxRetries, default 2)', () => {
  afterEach(closeService);

  it('a 503 unavailable is retried after its Retry-After and the call succeeds on the third attempt', async () => {
    const target = await serve((n) => (n <= 2 ? UNAVAILABLE : MODELS));
    const listed = await clientOf(target).models.list();
    assert.deepEqual(listed, { models: [] });
    assert.equal(target.requests.length, 3);
  });

  it('after maxRetries further attempts the last answer surfaces as its typed error', async () => {
    const target = await serve(() => UNAVAILABLE);
    const error = await rejection(clientOf(target).models.list());
    assert.ok(error instanceof StorageUnavailableError, String(error));
    assert.equal(target.requests.length, 3, 'one attempt and two retries');
  });

  it('maxRetries of the client and of the request bound the attempts', async () => {
    const target = await serve(() => UNAVAILABLE);
    await rejection(clientOf(target, { maxRetries: 1 }).models.list());
    assert.equal(target.requests.length, 2, 'client maxRetries 1');
    await rejection(clientOf(target, { maxRetries: 1 }).models.list({ maxRetries: 0 }));
    assert.equal(target.requests.length, 3, 'request maxRetries 0 overrides the client');
    await rejection(clientOf(target, { maxRetries: 0 }).models.list({ maxRetries: 3 }));
    assert.equal(target.requests.length, 7, 'request maxRetries 3 overrides the client');
  });

  it('a 429 is retried after Retry-After in seconds, and the call succeeds', async () => {
    const limited: Misbehavior = {
      answer: 429,
      headers: { 'retry-after': '1' },
      body: { error: 'rate_limit_exceeded', message: 'slow down' },
    };
    const target = await serve((n) => (n === 1 ? limited : MODELS));
    assert.deepEqual(await clientOf(target).models.list(), { models: [] });
    assert.equal(target.requests.length, 2);
  });

  it('a 429 whose Retry-After is an HTTP date is retried; one that persists surfaces as RateLimitError', async () => {
    const limited: Misbehavior = {
      answer: 429,
      headers: { 'retry-after': new Date(Date.now() - 1000).toUTCString() },
      body: { error: 'rate_limit_exceeded', message: 'slow down' },
    };
    const target = await serve(() => limited);
    const error = await rejection(clientOf(target).models.list());
    assert.ok(error instanceof RateLimitError, String(error));
    assert.equal(target.requests.length, 3);
  });

  it('408 and 500 are retried; 400 and 409 (state conflicts in this API) are not', async () => {
    const target = await serve((n) =>
      n === 1
        ? { answer: 408, headers: { 'retry-after-ms': '0' } }
        : n === 2
          ? {
              answer: 500,
              headers: { 'retry-after-ms': '0' },
              body: { error: 'internal_error', message: 'x' },
            }
          : n === 3
            ? MODELS
            : n === 4
              ? { answer: 400, body: { error: 'invalid_request', message: 'bad' } }
              : { answer: 409, body: { error: 'conflict', message: 'exists' } },
    );
    const client = clientOf(target);
    assert.deepEqual(await client.models.list(), { models: [] });
    assert.equal(target.requests.length, 3);
    assert.ok((await rejection(client.models.list())) instanceof InvalidRequestError);
    assert.equal(target.requests.length, 4, 'a 400 is not retried');
    assert.ok((await rejection(client.models.list())) instanceof ConflictError);
    assert.equal(target.requests.length, 5, 'a 409 is not retried');
  });
});

describe('client transport: calls that start a run are retried only with an Idempotency-Key', () => {
  afterEach(closeService);

  it('runs.create, sessions.message (idempotencyKey: false) and hostedAgents.send without a key: one attempt, the error surfaces', async () => {
    const target = await serve(() => UNAVAILABLE);
    const client = clientOf(target);
    const noKey = { idempotencyKey: false } as const;
    assert.ok(
      (await rejection(client.runs.create({ prompt: 'hi' }, noKey))) instanceof StorageUnavailableError,
    );
    assert.equal(target.requests.length, 1);
    assert.ok(
      (await rejection(client.sessions.message('ses_1', { prompt: 'hi' }, noKey))) instanceof
        StorageUnavailableError,
    );
    assert.equal(target.requests.length, 2);
    assert.ok((await rejection(client.hostedAgents.send('helper', 'hi'))) instanceof StorageUnavailableError);
    assert.equal(target.requests.length, 3);
    assert.ok(target.requests.every((request) => request.headers['idempotency-key'] === undefined));
  });

  it('a connection dropped while creating a run is not retried without a key', async () => {
    const target = await serve(() => ({ drop: true }));
    const error = await rejection(clientOf(target).runs.create({ prompt: 'hi' }, { idempotencyKey: false }));
    assert.ok(error instanceof ConnectionError, String(error));
    assert.equal(target.requests.length, 1);
  });

  it('with idempotencyKey the call is retried, each attempt carrying the same Idempotency-Key', async () => {
    const target = await serve((n) => (n <= 2 ? UNAVAILABLE : RUN_CREATED));
    const created = await clientOf(target).runs.create({ prompt: 'hi' }, { idempotencyKey: 'create-1' });
    assert.equal(created.runId, 'run_1');
    assert.deepEqual(
      target.requests.map((request) => request.headers['idempotency-key']),
      ['create-1', 'create-1', 'create-1'],
    );
  });
});

describe('client transport: ConnectionError, TimeoutError and the caller abort', () => {
  afterEach(closeService);

  it('a dropped connection is retried, then surfaces as ConnectionError (never a raw TypeError)', async () => {
    const target = await serve(() => ({ drop: true }));
    const error = await rejection(clientOf(target).models.list());
    assert.ok(error instanceof ConnectionError, String(error));
    assert.ok(error instanceof AgentRunsError);
    assert.equal(error.status, 0);
    assert.equal(error.code, 'connection_error');
    assert.ok(error.cause instanceof TypeError, 'the network error is its cause');
    assert.equal(target.requests.length, 3);
  });

  it('a refused connection is a ConnectionError', async () => {
    const target = await serve(() => MODELS);
    const client = clientOf(target, { maxRetries: 0 });
    await target.close();
    service = undefined;
    const error = await rejection(client.models.list());
    assert.ok(error instanceof ConnectionError, String(error));
    assert.ok(!(error instanceof TimeoutError));
  });

  it('a dropped connection then an answer: the retry succeeds', async () => {
    const target = await serve((n) => (n === 1 ? { drop: true } : MODELS));
    assert.deepEqual(await clientOf(target).models.list(), { models: [] });
    assert.equal(target.requests.length, 2);
  });

  it('an attempt longer than timeout fails with TimeoutError, retried like a connection error', async () => {
    const target = await serve(() => ({ hang: true }));
    const error = await rejection(clientOf(target, { timeout: 200 }).models.list({ maxRetries: 1 }));
    assert.ok(error instanceof TimeoutError, String(error));
    assert.ok(error instanceof ConnectionError);
    assert.equal(error.code, 'timeout');
    assert.equal(error.timeoutMs, 200);
    assert.equal(target.requests.length, 2, 'one attempt and one retry');
  });

  it('the timeout covers reading the body, and a per-request timeout overrides the client', async () => {
    const target = await serve((n) => (n === 1 ? { stallBody: true } : MODELS));
    const error = await rejection(clientOf(target).models.list({ timeout: 200, maxRetries: 0 }));
    assert.ok(error instanceof TimeoutError, String(error));
    assert.deepEqual(await clientOf(target).models.list(), { models: [] });
  });

  it("the caller's abort rejects with an AbortError, not a TimeoutError, and is not retried", async () => {
    const target = await serve(() => ({ hang: true }));
    const controller = new AbortController();
    const call = rejection(clientOf(target).models.list({ signal: controller.signal }));
    await target.requestArrived(1);
    controller.abort();
    const error = await call;
    assert.ok(error instanceof Error && error.name === 'AbortError', String(error));
    assert.ok(!(error instanceof AgentRunsError));
    assert.equal(target.requests.length, 1);
  });

  it("the caller's abort reason is what the call rejects with, also while waiting to retry", async () => {
    const target = await serve(() => ({ ...UNAVAILABLE, headers: { 'retry-after': '30' } }));
    const controller = new AbortController();
    const reason = new Error('the user closed the page');
    const call = rejection(clientOf(target).models.list({ signal: controller.signal }));
    await target.requestArrived(1);
    controller.abort(reason);
    assert.equal(await call, reason);
  });
});

describe('retry policy (unit)', () => {
  it('reads retry-after-ms, Retry-After in seconds and as an HTTP date; ignores a wait of a minute or more', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const delay = (headers: Record<string, string>) => serverDelayMs(new Headers(headers), now);
    assert.equal(delay({ 'retry-after-ms': '250' }), 250);
    assert.equal(delay({ 'retry-after-ms': '250', 'retry-after': '9' }), 250);
    assert.equal(delay({ 'retry-after': '2' }), 2000);
    assert.equal(delay({ 'retry-after': '0.5' }), 500);
    assert.equal(delay({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), 3000);
    assert.equal(delay({ 'retry-after': '60' }), undefined);
    assert.equal(delay({ 'retry-after': 'soon' }), undefined);
    assert.equal(delay({}), undefined);
  });

  it('without a server wait: exponential from 0.5 s, capped at 8 s, with at most 25 % jitter', () => {
    for (const [retry, base] of [
      [0, 500],
      [1, 1000],
      [2, 2000],
      [5, 8000],
    ] as const) {
      const delay = retryDelayMs(retry);
      assert.ok(delay <= base && delay >= base * 0.75, `retry ${retry}: ${delay}`);
    }
    assert.equal(retryDelayMs(3, new Headers({ 'retry-after': '1' })), 1000);
  });
});
