import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * An agent's `description` (shown to MCP clients and on A2A cards) and `outputSchema` (JSON: the
 * default `outputSchema` of its runs). Agents stored before it have neither.
 */
export const agentDescriptionAndOutputSchema: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('agents').addColumn('description', 'text').execute();
    await db.schema.alterTable('agents').addColumn('output_schema', 'text').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('agents').dropColumn('output_schema').execute();
    await db.schema.alterTable('agents').dropColumn('description').execute();
  },
};
