import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunOutcome } from '../../src/domain/run.ts';
import { RunEventRepository } from '../../src/storage/repositories/run-event-repository.ts';
import { RunRepository } from '../../src/storage/repositories/run-repository.ts';
import {
  insertWebhookDeliveries,
  WebhookDeliveryRepository,
} from '../../src/storage/repositories/webhook-delivery-repository.ts';
import { WebhookEndpointRepository } from '../../src/storage/repositories/webhook-endpoint-repository.ts';
import { WorkspaceRepository } from '../../src/storage/repositories/workspace-repository.ts';
import { ENGINES, openTestStorage } from '../support/engines.ts';
import { STORED_RUN_SPEC } from './stored-run-spec.ts';

const SUCCEEDED: RunOutcome = {
  status: 'succeeded',
  finalText: 'done',
  error: null,
  failureReason: null,
  tokens: { inputTokens: 1, cachedTokens: 0, reasoningTokens: 0, outputTokens: 1 },
  turns: 1,
  model: { id: 'p/m', provider: 'p', vendorModelId: 'm' },
};

const iso = (ms: number) => new Date(ms).toISOString();

for (const engine of ENGINES) {
  describe(`the webhook outbox on ${engine} (extensions §7)`, () => {
    let storage: Awaited<ReturnType<typeof openTestStorage>>;
    let deliveries: WebhookDeliveryRepository;
    let endpoints: WebhookEndpointRepository;
    let events: RunEventRepository;
    let runs: RunRepository;
    let workspaceId: string;

    before(async () => {
      storage = await openTestStorage(engine);
      deliveries = new WebhookDeliveryRepository(storage.db);
      endpoints = new WebhookEndpointRepository(storage.db);
      events = new RunEventRepository(storage.db);
      runs = new RunRepository(storage.db);
      const workspace = await new WorkspaceRepository(storage.db).create({
        slug: 'outbox',
        name: 'outbox',
        features: { apiKeys: true, oauthApps: true },
        rateLimits: {},
        maxConcurrentRuns: 10,
      });
      workspaceId = workspace.id;
    });
    after(() => storage.drop());

    const newRun = async () =>
      (
        await runs.create({
          workspaceId,
          agentId: null,
          sessionId: null,
          apiKeyId: null,
          spec: STORED_RUN_SPEC,
          metadata: {},
        })
      ).id;
    const endpoint = (events: Array<'run.succeeded' | 'run.failed'>, enabled = true) =>
      endpoints.create({
        workspaceId,
        url: 'https://hooks.invalid/h',
        events,
        description: null,
        enabled,
        secretSealed: 'sealed',
      });

    it('the terminal event commits one delivery per enabled subscribed endpoint; writing them again adds none', async () => {
      const subscribed = await endpoint(['run.succeeded']);
      const otherEvent = await endpoint(['run.failed']);
      const disabled = await endpoint(['run.succeeded'], false);
      const runId = await newRun();
      await events.append([
        { runId, events: [{ seq: 1, type: 'result', dataJson: '{}' }], outcome: SUCCEEDED },
      ]);
      const written = await deliveries.list(subscribed.id, 10, undefined);
      assert.deepEqual(
        written.map((delivery) => [delivery.runId, delivery.event, delivery.status, delivery.attempts]),
        [[runId, 'run.succeeded', 'pending', 0]],
      );
      assert.deepEqual(await deliveries.list(otherEvent.id, 10, undefined), []);
      assert.deepEqual(await deliveries.list(disabled.id, 10, undefined), []);
      await insertWebhookDeliveries(storage.db, runId, 'run.succeeded', 0, iso(Date.now()));
      assert.equal((await deliveries.list(subscribed.id, 10, undefined)).length, 1);
      for (const id of [subscribed.id, otherEvent.id, disabled.id]) await endpoints.delete(workspaceId, id);
    });

    it('one attempt in flight: concurrent claims take a due delivery once; after its lease it is due again; a lost lease records nothing', async () => {
      const hook = await endpoint(['run.succeeded']);
      const runId = await newRun();
      await events.append([
        { runId, events: [{ seq: 1, type: 'result', dataJson: '{}' }], outcome: SUCCEEDED },
      ]);
      const now = Date.now() + 1000;
      const claims = await Promise.all(
        Array.from({ length: 6 }, () => deliveries.claimDue(iso(now), iso(now + 30_000))),
      );
      const claimed = claims.filter((claim) => claim !== undefined);
      assert.equal(claimed.length, 1);
      assert.equal(claimed[0]?.runId, runId);
      assert.equal(claimed[0]?.workspaceSlug, 'outbox');
      assert.equal(await deliveries.nextDueAt(), iso(now + 30_000));

      // The claimant died: once its lease ends, another claims the delivery.
      const again = await deliveries.claimDue(iso(now + 30_001), iso(now + 60_000));
      assert.ok(again);
      assert.equal(again.id, claimed[0]?.id);
      const outcome = {
        result: { ok: true, statusCode: 200, error: null },
        status: 'succeeded',
        nextAttemptAt: null,
      } as const;
      await deliveries.recordAttempt(again.id, iso(now + 30_000), outcome);
      assert.equal(
        (await deliveries.list(hook.id, 1, undefined))[0]?.attempts,
        0,
        'the lost lease recorded nothing',
      );
      await deliveries.recordAttempt(again.id, iso(now + 60_000), outcome);
      const [recorded] = await deliveries.list(hook.id, 1, undefined);
      assert.equal(recorded?.status, 'succeeded');
      assert.equal(recorded?.attempts, 1);
      assert.equal(await deliveries.claimDue(iso(now + 90_000), iso(now + 120_000)), undefined);
      await endpoints.delete(workspaceId, hook.id);
    });
  });
}
