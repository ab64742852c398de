import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Scheduled runs (extensions §8): the schedules, and one row per (schedule, scheduled time) that a
 * process claims by inserting it in the transaction that moves the schedule's `next_run_at` on. The
 * primary key makes a second claim of the same time impossible on any replica.
 */
export const schedules: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('schedules')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('api_key_id', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('cron', 'text', (c) => c.notNull())
      .addColumn('timezone', 'text', (c) => c.notNull())
      // JSON: { prompt } or { messages }.
      .addColumn('input', 'text', (c) => c.notNull())
      .addColumn('session_id', 'text')
      .addColumn('metadata', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('next_run_at', 'text')
      .addColumn('last_run_at', 'text')
      .addColumn('last_run_id', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('schedules_workspace')
      .on('schedules')
      .columns(['workspace_id', 'id'])
      .execute();
    await db.schema
      .createIndex('schedules_due')
      .on('schedules')
      .columns(['enabled', 'next_run_at'])
      .execute();
    await db.schema
      .createTable('schedule_fires')
      .addColumn('schedule_id', 'text', (c) => c.notNull())
      .addColumn('scheduled_for', 'text', (c) => c.notNull())
      .addColumn('run_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('lease_until', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('schedule_fires_once', ['schedule_id', 'scheduled_for'])
      .execute();
    await db.schema
      .createIndex('schedule_fires_claimed')
      .on('schedule_fires')
      .columns(['status', 'lease_until'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('schedule_fires').ifExists().execute();
    await db.schema.dropTable('schedules').ifExists().execute();
  },
};
