import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * The run's trace context (JSON: trace id, the run span's id chosen at creation, the creating
 * request's span), so the process that executes the run continues the trace its creation began.
 * Runs stored before it have none.
 */
export const runTraceContext: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('runs').addColumn('trace_context', 'text').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('runs').dropColumn('trace_context').execute();
  },
};
