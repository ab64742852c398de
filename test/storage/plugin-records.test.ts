import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PluginRecordScope } from '../../src/engine/ports.ts';
import { PluginRecordRepository } from '../../src/storage/repositories/plugin-record-repository.ts';
import { WorkspaceRepository } from '../../src/storage/repositories/workspace-repository.ts';
import { ENGINES, openTestStorage } from '../support/engines.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 3));

for (const engine of ENGINES) {
  describe(`plugin records on ${engine}`, () => {
    let storage: Awaited<ReturnType<typeof openTestStorage>>;
    let records: PluginRecordRepository;
    let workspaces: WorkspaceRepository;

    before(async () => {
      storage = await openTestStorage(engine);
      records = new PluginRecordRepository(storage.db);
      workspaces = new WorkspaceRepository(storage.db);
    });
    after(() => storage.drop());

    /** A scope in a new workspace (records reference their workspace). */
    const newScope = async (slug: string, namespace = 'memory'): Promise<PluginRecordScope> => {
      const workspace = await workspaces.create({
        slug,
        name: slug,
        features: { apiKeys: true, oauthApps: true },
        rateLimits: {},
        maxConcurrentRuns: 10,
      });
      return { workspaceId: workspace.id, agentId: 'agt_one', namespace };
    };

    it('put then get returns the value and when it was written', async () => {
      const scope = await newScope('put-get');
      await records.put(scope, 'colour', 'blue');
      const record = await records.get(scope, 'colour');
      assert.equal(record?.key, 'colour');
      assert.equal(record?.value, 'blue');
      assert.match(record?.updatedAt ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(await records.get(scope, 'missing'), undefined);
    });

    it('writes made back to back (within one millisecond) still list newest first', async () => {
      const scope = await newScope('same-ms');
      for (const key of ['z', 'a', 'm', 'b']) await records.put(scope, key, key);
      assert.deepEqual(
        (await records.list(scope, 10)).map((record) => record.key),
        ['b', 'm', 'a', 'z'],
      );
    });

    it('putting an existing key replaces its value and makes it the newest', async () => {
      const scope = await newScope('upsert');
      await records.put(scope, 'a', 'first');
      await tick();
      await records.put(scope, 'b', 'second');
      await tick();
      await records.put(scope, 'a', 'replaced');
      const listed = await records.list(scope, 10);
      assert.deepEqual(
        listed.map((record) => [record.key, record.value]),
        [
          ['a', 'replaced'],
          ['b', 'second'],
        ],
      );
    });

    it('list is newest first, at most limit, ties broken by key descending', async () => {
      const scope = await newScope('list-order');
      for (const key of ['k1', 'k2', 'k3']) {
        await records.put(scope, key, key);
        await tick();
      }
      assert.deepEqual(
        (await records.list(scope, 2)).map((record) => record.key),
        ['k3', 'k2'],
      );

      const tied = await newScope('list-ties');
      const sameInstant = '2030-01-01T00:00:00.000Z';
      await storage.db
        .insertInto('plugin_records')
        .values(
          ['m', 'z', 'a'].map((key) => ({
            workspace_id: tied.workspaceId,
            agent_id: tied.agentId,
            namespace: tied.namespace,
            key,
            value: key,
            updated_at: sameInstant,
          })),
        )
        .execute();
      assert.deepEqual(
        (await records.list(tied, 10)).map((record) => record.key),
        ['z', 'm', 'a'],
      );
    });

    it('delete removes the record and tells whether there was one', async () => {
      const scope = await newScope('delete');
      await records.put(scope, 'gone', 'soon');
      assert.equal(await records.delete(scope, 'gone'), true);
      assert.equal(await records.get(scope, 'gone'), undefined);
      assert.equal(await records.delete(scope, 'gone'), false);
    });

    it('a scope sees only its own records: workspace, agent and namespace all separate', async () => {
      const scope = await newScope('scoped');
      const otherWorkspace = await newScope('scoped-other');
      const otherAgent = { ...scope, agentId: 'agt_two' };
      const otherNamespace = { ...scope, namespace: 'notes' };
      await records.put(scope, 'shared-key', 'mine');
      for (const other of [otherWorkspace, otherAgent, otherNamespace]) {
        assert.equal(await records.get(other, 'shared-key'), undefined);
        assert.deepEqual(await records.list(other, 10), []);
        assert.equal(await records.delete(other, 'shared-key'), false);
      }
      await records.put(otherAgent, 'shared-key', 'theirs');
      assert.equal((await records.get(scope, 'shared-key'))?.value, 'mine');
      assert.equal((await records.get(otherAgent, 'shared-key'))?.value, 'theirs');
    });
  });
}
