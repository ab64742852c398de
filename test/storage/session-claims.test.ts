import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { idBoundAt } from '../../src/domain/ids.ts';
import { createRepositories, type Repositories } from '../../src/storage/repositories/index.ts';
import { ENGINES, openTestStorage } from '../support/engines.ts';
import { STORED_RUN_SPEC } from './stored-run-spec.ts';

for (const engine of ENGINES) {
  describe(`session reservations on ${engine}`, () => {
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
      await repos.runs.create({
        id: runId,
        workspaceId,
        agentId: null,
        sessionId: session.id,
        apiKeyId: null,
        spec: STORED_RUN_SPEC,
        metadata: {},
      });
      assert.equal(await repos.sessions.claimForRun(session.id, runIdMadeAgo(0)), false);
    });
  });
}
