import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { CompiledQuery } from 'kysely';
import { runListSelect } from '../../src/storage/repositories/run-list-query.ts';
import { createTestWorkspace, describeOnEachEngine } from '../support/storage-suite.ts';
import { storedRunInput } from './stored-run-spec.ts';

const none = { statuses: [], metadata: [] };

describeOnEachEngine('runs list and the waiting status', ({ engine, storage, repos }) => {
  let workspaceId: string;

  before(async () => {
    ({ id: workspaceId } = await createTestWorkspace(repos.workspaces, 'runs-list'));
  });

  const newRun = (metadata: Record<string, string> = {}, agentId: string | null = null) =>
    repos.runs.create({ ...storedRunInput(workspaceId, metadata), agentId });

  it('keyset pages walk runs created in the same millisecond by id, with or without a metadata filter', async () => {
    const runs = [];
    for (let i = 0; i < 7; i++) runs.push(await newRun({ tie: 'yes' }));
    const sameTime = '2030-01-01T00:00:00.000Z';
    for (const table of ['runs', 'run_metadata'] as const) {
      const idColumn = table === 'runs' ? 'id' : 'run_id';
      await storage.db
        .updateTable(table)
        .set({ created_at: sameTime })
        .where(
          idColumn,
          'in',
          runs.map((run) => run.id),
        )
        .execute();
    }
    const expected = runs.map((run) => run.id).reverse();
    for (const metadata of [[], [{ key: 'tie', value: 'yes' }]]) {
      const seen: string[] = [];
      let after: { createdAt: string; id: string } | undefined;
      for (;;) {
        const page = await repos.runs.list(workspaceId, {
          ...none,
          metadata,
          limit: 3,
          ...(after && { after }),
        });
        seen.push(...page.map((run) => run.id));
        const last = page.at(-1);
        if (page.length < 3 || !last) break;
        after = { createdAt: last.createdAt, id: last.id };
      }
      assert.deepEqual(seen.slice(0, 7), expected, `metadata filters: ${metadata.length}`);
    }
  });

  it('a run created with metadata has one row per entry, stamped with its creation time', async () => {
    const run = await newRun({ customer: 'c1', channel: 'web' });
    const rows = await storage.db
      .selectFrom('run_metadata')
      .selectAll()
      .where('run_id', '=', run.id)
      .orderBy('key')
      .execute();
    assert.deepEqual(
      rows.map((row) => [row.key, row.value, row.created_at, row.workspace_id]),
      [
        ['channel', 'web', run.createdAt, workspaceId],
        ['customer', 'c1', run.createdAt, workspaceId],
      ],
    );
  });

  it('waiting: pending calls make a running run waiting; a claim keeps it; it runs again once none is pending', async () => {
    const run = await newRun();
    await repos.dispatch.admit(workspaceId);
    const first = await repos.runs.claimAttempt(run.id);
    assert.equal(first?.run.status, 'running');
    await repos.toolCalls.insertPending(run.id, [
      { toolUseId: 'c1', name: 'a', kind: 'local' },
      { toolUseId: 'c2', name: 'b', kind: 'local' },
    ]);
    const status = async () => (await repos.runs.findState(workspaceId, run.id))?.status;
    assert.equal(await status(), 'waiting');
    const listed = await repos.runs.list(workspaceId, { ...none, statuses: ['waiting'], limit: 50 });
    assert.ok(listed.some((entry) => entry.id === run.id));

    // A takeover (a new attempt) keeps the stored status.
    const second = await repos.runs.claimAttempt(run.id);
    assert.equal(second?.run.status, 'waiting');
    assert.equal(await status(), 'waiting');

    await repos.toolCalls.answer(run.id, 'c1', { result: 'one', files: [] });
    await repos.toolCalls.endWaiting(run.id);
    assert.equal(await status(), 'waiting', 'one call is still pending');
    await repos.toolCalls.answer(run.id, 'c2', { result: 'two', files: [] });
    await repos.toolCalls.endWaiting(run.id);
    assert.equal(await status(), 'running');
    const third = await repos.runs.claimAttempt(run.id);
    assert.equal(third?.run.status, 'running');
  });

  // PostgreSQL reads a table this small sequentially whatever its indexes: bench/runs-list.ts shows
  // its plans at 1,000,000 runs.
  const sqliteOnly = { skip: engine === 'postgres' && 'plans of a tiny table say nothing on PostgreSQL' };
  it('the queries walk their indexes in list order (no sort of the whole filter)', sqliteOnly, async () => {
    const plan = async (query: Parameters<typeof runListSelect>[2]) => {
      const compiled = runListSelect(storage.db, workspaceId, query).compile();
      const rows = await storage.db.executeQuery<Record<string, string>>(
        CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]),
      );
      return rows.rows.map((row) => row.detail ?? '').join('\n');
    };
    const after = { createdAt: '2030-01-01T00:00:00.000Z', id: 'run_01jzzzzzzzzzzzzzzzzzzzzzzz' };
    const cases: Array<[Parameters<typeof runListSelect>[2], string]> = [
      [{ ...none, limit: 51 }, 'runs_workspace_recent'],
      [{ ...none, limit: 51, after }, 'runs_workspace_recent'],
      [{ ...none, statuses: ['waiting'], limit: 51 }, 'runs_workspace_status_recent'],
      [{ ...none, agentId: 'agt_01jzzzzzzzzzzzzzzzzzzzzzzz', limit: 51 }, 'runs_workspace_agent_recent'],
      [{ ...none, sessionId: 'ses_01jzzzzzzzzzzzzzzzzzzzzzzz', limit: 51 }, 'runs_workspace_session_recent'],
      [{ ...none, metadata: [{ key: 'k', value: 'v' }], limit: 51, after }, 'run_metadata_lookup'],
    ];
    for (const [query, index] of cases) {
      const text = await plan(query);
      assert.match(text, new RegExp(index), JSON.stringify(query));
      assert.doesNotMatch(text, /TEMP B-TREE/, JSON.stringify(query));
    }
  });
});
