/**
 * A session's line of held runs (extensions §6, migration 0017) on every engine: hand-over order,
 * the claim refused while runs wait, and the dispatch sweep's repair of what a crash left undone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRepositories, type Repositories } from '../../src/storage/repositories/index.ts';
import { ENGINES, openTestStorage } from '../support/engines.ts';
import { STORED_RUN_SPEC } from './stored-run-spec.ts';

for (const engine of ENGINES) {
  describe(`session run line on ${engine}`, () => {
    let storage: Awaited<ReturnType<typeof openTestStorage>>;
    let repos: Repositories;
    let workspaceId: string;

    before(async () => {
      storage = await openTestStorage(engine);
      repos = createRepositories(storage.db);
      ({ id: workspaceId } = await repos.workspaces.create({
        slug: 'acme',
        name: 'acme',
        features: { apiKeys: true, oauthApps: true },
        rateLimits: {},
        maxConcurrentRuns: 100,
      }));
    });
    after(() => storage.drop());

    const newSession = () =>
      repos.sessions.create({ workspaceId, apiKeyId: null, spec: { systemPrompt: 's' }, metadata: {} });
    const heldRun = async (sessionId: string) =>
      (
        await repos.runs.create({
          workspaceId,
          agentId: null,
          sessionId,
          apiKeyId: null,
          spec: STORED_RUN_SPEC,
          metadata: {},
          heldBySession: true,
        })
      ).id;
    const dispatchOf = async (runId: string) =>
      (await storage.db.selectFrom('runs').select('dispatch').where('id', '=', runId).executeTakeFirst())
        ?.dispatch;
    const holderOf = async (sessionId: string) =>
      (await repos.sessions.findById(workspaceId, sessionId))?.activeRunId;

    it('held runs wait in the line (no slot, no job) and a free session goes to the oldest one nobody cancelled', async () => {
      const session = await newSession();
      const [first, second, third] = [
        await heldRun(session.id),
        await heldRun(session.id),
        await heldRun(session.id),
      ];
      assert.equal(await dispatchOf(first), 'session');
      assert.deepEqual(await repos.dispatch.admit(workspaceId), [], 'a held run is in no workspace line');
      assert.equal(await repos.sessions.claimForRun(session.id, 'run_x'), false, 'runs wait: busy');
      await repos.runs.requestCancel(first);
      assert.equal(await repos.sessions.promoteHeldRun(session.id), second);
      assert.equal(await holderOf(session.id), second);
      assert.equal(await dispatchOf(second), 'waiting');
      assert.equal(await repos.sessions.promoteHeldRun(session.id), undefined, 'the session is held');
      assert.deepEqual(await repos.sessions.heldRuns(session.id), [third]);
    });

    it('preempt marks the holder and requests the cancel of the runs held before the message', async () => {
      const session = await newSession();
      assert.equal(await repos.sessions.claimForRun(session.id, 'run_holder'), true);
      const queued = await heldRun(session.id);
      const preempting = await heldRun(session.id);
      const later = await heldRun(session.id);
      assert.deepEqual(await repos.sessions.preempt(session.id, preempting, 'rollback'), [
        'run_holder',
        queued,
      ]);
      const states = await storage.db
        .selectFrom('runs')
        .select(['id', 'cancel_requested_at'])
        .where('id', 'in', [queued, preempting, later])
        .execute();
      const cancelled = states.filter((row) => row.cancel_requested_at !== null).map((row) => row.id);
      assert.deepEqual(cancelled, [queued]);
    });

    it('the dispatch sweep hands a free session to its held run and cancels the held runs of an ended session', async () => {
      const stranded = await newSession();
      const waiting = await heldRun(stranded.id);
      const ended = await newSession();
      const orphan = await heldRun(ended.id);
      assert.ok(await repos.sessions.end(workspaceId, ended.id));
      assert.equal(await repos.dispatch.releaseStrandedSessionRuns(100), 2);
      assert.equal(await holderOf(stranded.id), waiting);
      assert.equal(await dispatchOf(waiting), 'waiting');
      assert.equal(await dispatchOf(orphan), 'waiting');
      const orphanRow = await storage.db
        .selectFrom('runs')
        .select('cancel_requested_at')
        .where('id', '=', orphan)
        .executeTakeFirst();
      assert.notEqual(orphanRow?.cancel_requested_at, null, 'it only ends, cancelled');
      assert.equal(await repos.dispatch.releaseStrandedSessionRuns(100), 0, 'nothing left to repair');
    });
  });
}
