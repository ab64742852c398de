import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ConsoleHandoff } from '../../src/engine/ports.ts';
import { ConsoleHandoffRepository } from '../../src/storage/repositories/console-handoff-repository.ts';
import { WorkspaceRepository } from '../../src/storage/repositories/workspace-repository.ts';
import { ENGINES, openTestStorage } from '../support/engines.ts';

for (const engine of ENGINES) {
  describe(`console sign-in handoffs on ${engine}`, () => {
    let storage: Awaited<ReturnType<typeof openTestStorage>>;
    let handoffs: ConsoleHandoffRepository;
    let workspaceId: string;

    before(async () => {
      storage = await openTestStorage(engine);
      handoffs = new ConsoleHandoffRepository(storage.db);
      const workspace = await new WorkspaceRepository(storage.db).create({
        slug: 'handoffs',
        name: 'handoffs',
        features: { apiKeys: true, oauthApps: true },
        rateLimits: {},
        maxConcurrentRuns: 10,
      });
      workspaceId = workspace.id;
    });
    after(() => storage.drop());

    const handoff = (idHash: string, expiresInMs: number): ConsoleHandoff => ({
      idHash,
      workspaceId,
      browserBindingHash: `binding-${idHash}`,
      sealedToken: `sealed-${idHash}`,
      tokenExpiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      expiresAt: new Date(Date.now() + expiresInMs).toISOString(),
    });

    it('a handoff is taken once: the first take returns it, the next finds nothing', async () => {
      const stored = handoff('once', 60_000);
      await handoffs.create(stored);
      assert.deepEqual(await handoffs.take('once'), stored);
      assert.equal(await handoffs.take('once'), undefined);
    });

    it('of concurrent takes of one handoff exactly one gets it', async () => {
      await handoffs.create(handoff('raced', 60_000));
      const taken = await Promise.all(Array.from({ length: 8 }, () => handoffs.take('raced')));
      assert.equal(taken.filter((one) => one !== undefined).length, 1);
    });

    it('an expired handoff is not returned, and an unknown one is nothing', async () => {
      await handoffs.create(handoff('expired', -1_000));
      assert.equal(await handoffs.take('expired'), undefined);
      assert.equal(await handoffs.take('never-stored'), undefined);
    });
  });
}
