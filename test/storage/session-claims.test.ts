import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { idBoundAt } from '../../src/domain/ids.ts';
import { createTestWorkspace, describeOnEachEngine } from '../support/storage-suite.ts';
import { storedRunInput } from './stored-run-spec.ts';

describeOnEachEngine('session reservations', ({ repos }) => {
  let workspaceId: string;

  before(async () => {
    ({ id: workspaceId } = await createTestWorkspace(repos.workspaces, 'acme'));
  });

  const newSession = () =>
    repos.sessions.create({ workspaceId, apiKeyId: null, spec: { systemPrompt: 's' }, metadata: {} });
  /** A run id as `newId` made it `ageMs` ago (its first characters are its time). */
  const runIdMadeAgo = (ageMs: number) => `${idBoundAt('run', Date.now() - ageMs)}0000000000000000`;

  it('a reservation is exclusive while its run may still be on its way', async () => {
    const session = await newSession();
    assert.equal(await repos.sessions.claimForRun(session.id, runIdMadeAgo(0)), true);
    assert.equal(await repos.sessions.claimForRun(session.id, runIdMadeAgo(0)), false);
  });

  it('a reservation whose run was never created (the database went away between the two writes) is taken over after a minute', async () => {
    const session = await newSession();
    assert.equal(await repos.sessions.claimForRun(session.id, runIdMadeAgo(61_000)), true);
    const next = runIdMadeAgo(0);
    assert.equal(await repos.sessions.claimForRun(session.id, next), true);
    assert.equal((await repos.sessions.findById(workspaceId, session.id))?.activeRunId, next);
  });

  it('an old reservation whose run exists is never taken over', async () => {
    const session = await newSession();
    const runId = runIdMadeAgo(61_000);
    assert.equal(await repos.sessions.claimForRun(session.id, runId), true);
    await repos.runs.create({ ...storedRunInput(workspaceId), id: runId, sessionId: session.id });
    assert.equal(await repos.sessions.claimForRun(session.id, runIdMadeAgo(0)), false);
  });
});
