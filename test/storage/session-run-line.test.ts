/**
 * A session's line of held runs (extensions §6, migration 0017) on every engine: hand-over order,
 * the claim refused while runs wait, and the dispatch sweep's repair of what a crash left undone.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { idBoundAt } from '../../src/domain/ids.ts';
import { createTestWorkspace, describeOnEachEngine } from '../support/storage-suite.ts';
import { storedRunInput } from './stored-run-spec.ts';

describeOnEachEngine('session run line', ({ storage, repos }) => {
  let workspaceId: string;

  before(async () => {
    ({ id: workspaceId } = await createTestWorkspace(repos.workspaces, 'acme'));
  });

  const newSession = () =>
    repos.sessions.create({ workspaceId, apiKeyId: null, spec: { systemPrompt: 's' }, metadata: {} });
  const heldRun = async (sessionId: string) =>
    (await repos.runs.create({ ...storedRunInput(workspaceId), sessionId, heldBySession: true })).id;
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

  it('the sweep frees a line stuck behind a reservation whose run was never created, once it is a minute old', async () => {
    const session = await newSession();
    const reserved = `${idBoundAt('run', Date.now() - 61_000)}0000000000000000`;
    assert.equal(await repos.sessions.claimForRun(session.id, reserved), true);
    const waiting = await heldRun(session.id);
    const fresh = await newSession();
    assert.equal(
      await repos.sessions.claimForRun(fresh.id, `${idBoundAt('run', Date.now())}0000000000000000`),
      true,
    );
    const behindFresh = await heldRun(fresh.id);
    assert.equal(await repos.dispatch.releaseStrandedSessionRuns(100), 1);
    assert.equal(await holderOf(session.id), waiting);
    assert.equal(await dispatchOf(behindFresh), 'session', 'a fresh reservation may still get its run');
  });
});
