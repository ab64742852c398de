import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { isPostgres } from '../dialect.ts';

/**
 * The runs list (`GET {ws}/agent-runs`): newest first by `(created_at, id)`, paged by keyset. Each
 * filter has an index that yields its runs already in that order, so a page reads about `limit`
 * index entries whatever the depth: the workspace alone, by status, by agent, by session. Metadata
 * becomes rows (as sessions' metadata, migration 0004) carrying the run's creation time, so a
 * `metadata=key:value` filter walks its own index in list order too. Existing runs' metadata is
 * copied from their JSON column (on PostgreSQL, not that of a run whose metadata holds U+0000, which
 * its text cannot hold: such runs, refused since, are not found by metadata filters).
 */
export const runsList: Migration = {
  async up(db: Kysely<unknown>) {
    // (workspace_id, created_at) could not order ties within a millisecond by id.
    await db.schema.dropIndex('runs_workspace_created').execute();
    const recent = [
      ['runs_workspace_recent', []],
      ['runs_workspace_status_recent', ['status']],
      ['runs_workspace_agent_recent', ['agent_id']],
      ['runs_workspace_session_recent', ['session_id']],
    ] as const;
    for (const [name, filter] of recent) {
      await db.schema
        .createIndex(name)
        .on('runs')
        .columns(['workspace_id', ...filter, 'created_at', 'id'])
        .execute();
    }

    await db.schema
      .createTable('run_metadata')
      .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('run_metadata_pk', ['run_id', 'key'])
      .execute();
    await db.schema
      .createIndex('run_metadata_lookup')
      .on('run_metadata')
      .columns(['workspace_id', 'key', 'value', 'created_at', 'run_id'])
      .execute();
    await (
      isPostgres(db)
        ? sql`insert into run_metadata (run_id, workspace_id, key, value, created_at)
          select runs.id, runs.workspace_id, entry.key, entry.value, runs.created_at
          from runs cross join lateral json_each_text(runs.metadata::json) as entry
          where runs.metadata <> '{}' and strpos(runs.metadata, '\\u0000') = 0`
        : sql`insert into run_metadata (run_id, workspace_id, key, value, created_at)
          select runs.id, runs.workspace_id, entry.key, entry.value, runs.created_at
          from runs, json_each(runs.metadata) as entry
          where runs.metadata <> '{}'`
    ).execute(db);
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('run_metadata').ifExists().execute();
    for (const name of [
      'runs_workspace_session_recent',
      'runs_workspace_agent_recent',
      'runs_workspace_status_recent',
      'runs_workspace_recent',
    ]) {
      await db.schema.dropIndex(name).execute();
    }
    await db.schema
      .createIndex('runs_workspace_created')
      .on('runs')
      .columns(['workspace_id', 'created_at'])
      .execute();
  },
};
