import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { newId } from '../../src/domain/ids.ts';
import type { SerializedRunEvent } from '../../src/domain/run-events.ts';
import { nowIso } from '../../src/storage/json-column.ts';
import { fencedRuns } from '../../src/storage/repositories/attempt-fence.ts';
import { describeMigrationOnEachEngine } from '../support/migration-suite.ts';
import { createTestWorkspace } from '../support/storage-suite.ts';
import { eventually } from '../support/waits.ts';
import { STORED_RUN_SPEC } from './stored-run-spec.ts';

const BEFORE = '0021-a2a-tasks';
const WITHOUT_FOREIGN_KEY = '0022-run-events-without-foreign-key';

const delta = (seq: number): SerializedRunEvent => ({
  seq,
  type: 'assistant_delta',
  dataJson: JSON.stringify({ text: `d${seq}` }),
});

describeMigrationOnEachEngine(
  'migration 0022: run_events without its foreign key on PostgreSQL',
  BEFORE,
  ({ engine, storage, repos, migrateTo }) => {
    /** The foreign keys of run_events, as the engine's catalog lists them. */
    const foreignKeys = async (): Promise<number> => {
      const query =
        engine === 'postgres'
          ? sql`select conname from pg_constraint where conrelid = 'run_events'::regclass and contype = 'f'`
          : sql`select * from pragma_foreign_key_list('run_events')`;
      return (await query.execute(storage.db)).rows.length;
    };
    const eventsOf = async (runId: string) =>
      (await storage.db.selectFrom('run_events').select('seq').where('run_id', '=', runId).execute()).length;
    /** A run row as the schema before 0022 holds it (the repositories write the latest schema). */
    const storeRun = async (workspaceId: string) => {
      const id = newId('run');
      const at = new Date().toISOString();
      await storage.db
        .insertInto('runs')
        .values({
          id,
          workspace_id: workspaceId,
          agent_id: null,
          session_id: null,
          api_key_id: null,
          status: 'running',
          spec: JSON.stringify(STORED_RUN_SPEC),
          metadata: '{}',
          final_text: null,
          error: null,
          failure_reason: null,
          tokens: null,
          turns: null,
          model: null,
          cancel_requested_at: null,
          dispatch: null,
          session_cut: null,
          wake_at: null,
          trace_context: null,
          created_at: at,
          updated_at: at,
          ended_at: null,
        })
        .execute();
      return id;
    };
    const newWorkspace = (slug: string) => createTestWorkspace(repos.workspaces, slug);

    it('up keeps the stored events and drops the key on PostgreSQL only; down restores it', async () => {
      const workspace = await newWorkspace('before-0022');
      const runId = await storeRun(workspace.id);
      await repos.runEvents.append([{ runId, events: [delta(1), delta(2), delta(3)] }]);
      assert.equal(await foreignKeys(), 1, 'before 0022 run_events.run_id references runs.id');

      await migrateTo(WITHOUT_FOREIGN_KEY);
      assert.equal(await foreignKeys(), engine === 'postgres' ? 0 : 1);
      assert.deepEqual(
        (await repos.runEvents.readAfter(runId, 0)).map((event) => event.seq),
        [1, 2, 3],
        'the events stored before are all there',
      );

      await migrateTo(BEFORE);
      assert.equal(await foreignKeys(), 1, 'down adds the key back');
      await migrateTo(WITHOUT_FOREIGN_KEY);
      assert.equal(await foreignKeys(), engine === 'postgres' ? 0 : 1);
    });

    it('no event is written for a run that does not exist, with or without an attempt', async () => {
      await migrateTo(WITHOUT_FOREIGN_KEY); // already, after the first test; for this test run alone
      const workspace = await newWorkspace('missing-run');
      const stored = await storeRun(workspace.id);
      const missing = newId('run');
      if (engine === 'postgres') {
        // The fence finds no row: that run's batch is dropped alone, the other's is written.
        for (const [index, attempt] of [undefined, 1].entries()) {
          const fenced = await repos.runEvents.append([
            { runId: missing, events: [delta(1)], ...(attempt !== undefined && { attempt }) },
            { runId: stored, events: [delta(index + 1)] },
          ]);
          assert.deepEqual([...fenced], [missing], `attempt ${attempt}: the missing run is fenced`);
        }
        assert.equal(await eventsOf(stored), 2);
      } else {
        // SQLite keeps the foreign key: the whole commit is refused.
        await assert.rejects(repos.runEvents.append([{ runId: missing, events: [delta(1)] }]), /FOREIGN KEY/);
      }
      assert.equal(await eventsOf(missing), 0);
    });

    it('deleting a workspace deletes its runs’ events, not another’s', async () => {
      await migrateTo(WITHOUT_FOREIGN_KEY); // already, after the first test; for this test run alone
      const deleted = await newWorkspace('deleted');
      const kept = await newWorkspace('kept');
      const gone = [await storeRun(deleted.id), await storeRun(deleted.id)];
      const stays = await storeRun(kept.id);
      await repos.runEvents.append([
        ...gone.map((runId) => ({ runId, events: [delta(1), delta(2)] })),
        { runId: stays, events: [delta(1), delta(2)] },
      ]);
      assert.equal(await repos.workspaces.delete(deleted.id), true);
      for (const runId of gone) assert.equal(await eventsOf(runId), 0, `events of ${runId} deleted`);
      assert.equal(await eventsOf(stays), 2);
      assert.equal(await repos.workspaces.delete(deleted.id), false, 'a second delete finds nothing');
    });

    it(
      'a workspace deleted while a commit of its run’s events is in flight leaves none of them',
      {
        skip: engine !== 'postgres' && 'SQLite runs one write transaction at a time',
      },
      async () => {
        await migrateTo(WITHOUT_FOREIGN_KEY);
        const workspace = await newWorkspace('deleted-mid-commit');
        const runId = await storeRun(workspace.id);
        let deleting: Promise<boolean> | undefined;
        // The event writer's commit, held open after its fence and insert until the deletion waits on it.
        await storage.db.transaction().execute(async (trx) => {
          assert.equal((await fencedRuns(trx, [{ runId }], { everyRun: true })).size, 0);
          await trx
            .insertInto('run_events')
            .values({ run_id: runId, seq: 1, type: 'assistant_delta', data: '{}', created_at: nowIso() })
            .execute();
          deleting = repos.workspaces.delete(workspace.id);
          await eventually(async () => {
            const waiting = await sql<{ count: string }>`select count(*) as count from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`.execute(storage.db);
            return Number(waiting.rows[0]?.count) > 0;
          }, 'the deletion waits for the commit');
        });
        assert.equal(await deleting, true);
        assert.equal(
          await eventsOf(runId),
          0,
          'the events committed while the deletion waited are deleted too',
        );
        assert.deepEqual(
          [...(await repos.runEvents.append([{ runId, events: [delta(2)] }]))],
          [runId],
          'a later commit finds no run',
        );
        assert.equal(await eventsOf(runId), 0);
      },
    );
  },
);
