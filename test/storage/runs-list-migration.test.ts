import assert from 'node:assert/strict';
import { it } from 'node:test';
import { newId } from '../../src/domain/ids.ts';
import { describeMigrationOnEachEngine } from '../support/migration-suite.ts';
import { STORED_RUN_SPEC } from './stored-run-spec.ts';

const BEFORE = '0013-run-trace-context';
const RUNS_LIST = '0014-runs-list';

describeMigrationOnEachEngine(
  'migration 0014: runs stored before it are listed by their metadata',
  BEFORE,
  ({ engine, storage, repos, migrateTo }) => {
    it('copies each run’s metadata into rows stamped with its creation time; down and up again', async () => {
      const workspace = await repos.workspaces.create({
        slug: 'before-0014',
        name: 'before-0014',
        features: { apiKeys: true, oauthApps: true },
        rateLimits: {},
        maxConcurrentRuns: 100,
      });
      // As the repository wrote runs before 0014: metadata in the JSON column only.
      const stored = [
        {
          id: newId('run'),
          metadata: { customer: 'c1', note: 'a "quoted" value: ü' },
          at: '2026-01-01T00:00:00.000Z',
        },
        { id: newId('run'), metadata: { customer: 'c1' }, at: '2026-01-02T00:00:00.000Z' },
        { id: newId('run'), metadata: {}, at: '2026-01-03T00:00:00.000Z' },
        // Accepted before metadata refused U+0000: PostgreSQL's text cannot hold it as a row.
        { id: newId('run'), metadata: { nul: 'a\u0000b' }, at: '2026-01-04T00:00:00.000Z' },
      ];
      for (const run of stored) {
        await storage.db
          .insertInto('runs')
          .values({
            id: run.id,
            workspace_id: workspace.id,
            agent_id: null,
            session_id: null,
            api_key_id: null,
            status: 'succeeded',
            spec: JSON.stringify(STORED_RUN_SPEC),
            metadata: JSON.stringify(run.metadata),
            final_text: 'done',
            error: null,
            failure_reason: null,
            tokens: null,
            turns: null,
            model: null,
            cancel_requested_at: null,
            dispatch: null,
            wake_at: null,
            trace_context: null,
            created_at: run.at,
            updated_at: run.at,
            ended_at: run.at,
          })
          .execute();
      }
      await migrateTo(RUNS_LIST);
      const rows = await storage.db
        .selectFrom('run_metadata')
        .select(['run_id', 'key', 'value', 'created_at'])
        .orderBy('created_at')
        .orderBy('key')
        .execute();
      assert.deepEqual(rows.slice(0, 3), [
        { run_id: stored[0]?.id, key: 'customer', value: 'c1', created_at: stored[0]?.at },
        { run_id: stored[0]?.id, key: 'note', value: 'a "quoted" value: ü', created_at: stored[0]?.at },
        { run_id: stored[1]?.id, key: 'customer', value: 'c1', created_at: stored[1]?.at },
      ]);
      // SQLite copies the NUL value too; PostgreSQL leaves that run out rather than fail the migration.
      assert.equal(rows.length, engine === 'postgres' ? 3 : 4);
      const listed = await repos.runs.list(workspace.id, {
        statuses: [],
        metadata: [{ key: 'customer', value: 'c1' }],
        limit: 10,
      });
      assert.deepEqual(
        listed.map((run) => run.id),
        [stored[1]?.id, stored[0]?.id],
      );

      await migrateTo(BEFORE);
      await migrateTo(RUNS_LIST);
      assert.equal(
        (await storage.db.selectFrom('run_metadata').select('run_id').execute()).length,
        rows.length,
        'down drops the rows, up copies them again',
      );
    });
  },
);
