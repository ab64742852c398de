import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Webhooks (extensions §7): a workspace's endpoints, their secret sealed at rest (it signs, so it
 * cannot be hashed), and the outbox of deliveries. A delivery row is inserted in the transaction that
 * writes the event it announces; `(endpoint_id, run_id, event, period)` is unique so a retried
 * commit never makes a second one. `lease_until` keeps one attempt in flight across replicas.
 */
export const webhooks: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('secret_sealed', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('webhook_endpoints_workspace')
      .on('webhook_endpoints')
      .columns(['workspace_id', 'id'])
      .execute();
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('endpoint_id', 'text', (c) =>
        c.notNull().references('webhook_endpoints.id').onDelete('cascade'),
      )
      .addColumn('run_id', 'text', (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      // 0 for a terminal event; a run.waiting delivery's waiting period (its event's seq).
      .addColumn('period', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('next_attempt_at', 'text')
      .addColumn('lease_until', 'text')
      // The body, fixed at the first attempt so every attempt signs the same one.
      .addColumn('payload', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('webhook_deliveries_once', ['endpoint_id', 'run_id', 'event', 'period'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_due')
      .on('webhook_deliveries')
      .columns(['status', 'next_attempt_at'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_endpoint')
      .on('webhook_deliveries')
      .columns(['endpoint_id', 'id'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('webhook_deliveries').ifExists().execute();
    await db.schema.dropTable('webhook_endpoints').ifExists().execute();
  },
};
