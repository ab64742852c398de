import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * `Idempotency-Key`s of creation requests (extensions §5): one row per (workspace, route, key),
 * claimed by the insert that wins, so concurrent identical requests on any replica create one
 * resource. `resource_id` is the run or session id reserved for the creation, so the request that
 * takes over a crashed claim can find what the first one created. `expires_at` is indexed for the
 * periodic purge.
 */
export const idempotencyKeys: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('route', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('body_hash', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('claim_token', 'text', (c) => c.notNull())
      .addColumn('resource_id', 'text', (c) => c.notNull())
      .addColumn('response_status', 'integer')
      .addColumn('response_body', 'text')
      .addColumn('claimed_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['workspace_id', 'route', 'key'])
      .execute();
    await db.schema
      .createIndex('idempotency_keys_expires_at')
      .on('idempotency_keys')
      .column('expires_at')
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('idempotency_keys').ifExists().execute();
  },
};
