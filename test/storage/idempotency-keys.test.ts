import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { IdempotencyClaimOutcome } from '../../src/engine/ports.ts';
import { IdempotencyKeyRepository } from '../../src/storage/repositories/idempotency-key-repository.ts';
import { WorkspaceRepository } from '../../src/storage/repositories/workspace-repository.ts';
import { ENGINES, openTestStorage } from '../support/engines.ts';

const TIMINGS = { keepMs: 60_000, staleClaimMs: 60_000 };

function claimOf(outcome: IdempotencyClaimOutcome) {
  assert.equal(outcome.kind, 'claimed', `expected a claim, got ${outcome.kind}`);
  return outcome.kind === 'claimed' ? outcome.claim : assert.fail('unreachable');
}

for (const engine of ENGINES) {
  describe(`idempotency keys on ${engine}`, () => {
    let storage: Awaited<ReturnType<typeof openTestStorage>>;
    let keys: IdempotencyKeyRepository;
    let workspaceId: string;

    before(async () => {
      storage = await openTestStorage(engine);
      keys = new IdempotencyKeyRepository(storage.db);
      const workspace = await new WorkspaceRepository(storage.db).create({
        slug: 'idem',
        name: 'idem',
        features: { apiKeys: true, oauthApps: true },
        rateLimits: {},
        maxConcurrentRuns: 10,
      });
      workspaceId = workspace.id;
    });
    after(() => storage.drop());

    const scope = (key: string, route = 'createRun') => ({ workspaceId, route, key });

    it('concurrent claims of one key: exactly one wins, the others see it in progress', async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, (_, i) => keys.claim(scope('race'), 'h', `run_${i}`, TIMINGS)),
      );
      assert.equal(outcomes.filter((o) => o.kind === 'claimed').length, 1);
      assert.equal(outcomes.filter((o) => o.kind === 'in_progress').length, 9);
    });

    it('a completed key replays its answer for the same body and refuses another body', async () => {
      const claim = claimOf(await keys.claim(scope('done'), 'h1', 'run_a', TIMINGS));
      await keys.complete(claim, { status: 202, body: '{"runId":"run_a"}' }, TIMINGS.keepMs);
      assert.deepEqual(await keys.claim(scope('done'), 'h1', 'run_b', TIMINGS), {
        kind: 'replay',
        answer: { status: 202, body: '{"runId":"run_a"}' },
      });
      assert.deepEqual(await keys.claim(scope('done'), 'h2', 'run_c', TIMINGS), { kind: 'body_mismatch' });
      assert.equal(await keys.exists(scope('done')), true);
    });

    it('a released key is claimed anew; the same key on another route is another key', async () => {
      const claim = claimOf(await keys.claim(scope('failed'), 'h', 'run_a', TIMINGS));
      await keys.release(claim);
      assert.equal(await keys.exists(scope('failed')), false);
      claimOf(await keys.claim(scope('failed'), 'h', 'run_b', TIMINGS));
      claimOf(await keys.claim(scope('failed', 'createSession'), 'other', 'ses_a', TIMINGS));
    });

    it('a stale claim is taken over, keeping the reserved id; the old holder can no longer settle it', async () => {
      const stale = claimOf(await keys.claim(scope('crashed'), 'h', 'run_first', TIMINGS));
      assert.equal((await keys.claim(scope('crashed'), 'h', 'run_second', TIMINGS)).kind, 'in_progress');
      const taken = claimOf(
        await keys.claim(scope('crashed'), 'h', 'run_third', { keepMs: TIMINGS.keepMs, staleClaimMs: 0 }),
      );
      assert.equal(taken.resourceId, 'run_first');
      assert.equal(taken.takenOver, true);
      await keys.complete(stale, { status: 202, body: '"old"' }, TIMINGS.keepMs);
      await keys.complete(taken, { status: 202, body: '"new"' }, TIMINGS.keepMs);
      const replay = await keys.claim(scope('crashed'), 'h', 'run_x', TIMINGS);
      assert.deepEqual(replay, { kind: 'replay', answer: { status: 202, body: '"new"' } });
    });

    it('an expired key is claimed anew, whatever body it had, and the purge deletes expired keys', async () => {
      claimOf(await keys.claim(scope('old'), 'h', 'run_a', { keepMs: -1, staleClaimMs: 60_000 }));
      assert.equal(await keys.exists(scope('old')), false);
      const renewed = claimOf(await keys.claim(scope('old'), 'other', 'run_b', TIMINGS));
      assert.equal(renewed.resourceId, 'run_b');
      claimOf(await keys.claim(scope('purged'), 'h', 'run_c', { keepMs: -1, staleClaimMs: 60_000 }));
      assert.ok((await keys.purgeExpired()) >= 1);
      assert.equal(await keys.exists(scope('old')), true);
    });
  });
}
