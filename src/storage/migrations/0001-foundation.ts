import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/** Workspaces, credentials, the model catalog, agents, tools, users, OAuth apps, runs and their event log. */
export const foundation: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('workspaces')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('features', 'text', (c) => c.notNull())
      .addColumn('rate_limits', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('key_prefix', 'text', (c) => c.notNull())
      .addColumn('usage', 'text', (c) => c.notNull())
      .addColumn('agent_ids', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text')
      .addColumn('revoked_at', 'text')
      .addColumn('last_used_at', 'text')
      .execute();
    await db.schema.createIndex('api_keys_workspace').on('api_keys').column('workspace_id').execute();

    await db.schema
      .createTable('offerings')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('api', 'text', (c) => c.notNull())
      .addColumn('base_url', 'text')
      .addColumn('api_key_enc', 'text')
      .addColumn('vendor_model_id', 'text', (c) => c.notNull())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('context_window_tokens', 'integer', (c) => c.notNull())
      .addColumn('pricing', 'text')
      .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('offerings_provider_model', ['provider', 'vendor_model_id'])
      .execute();

    await db.schema
      .createTable('workspace_providers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('api', 'text', (c) => c.notNull())
      .addColumn('base_url', 'text')
      .addColumn('api_key_enc', 'text')
      .addColumn('default_model', 'text', (c) => c.notNull())
      .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('workspace_providers_workspace')
      .on('workspace_providers')
      .column('workspace_id')
      .execute();

    await db.schema
      .createTable('provider_models')
      .addColumn('provider_id', 'text', (c) =>
        c.notNull().references('workspace_providers.id').onDelete('cascade'),
      )
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('vendor_model_id', 'text', (c) => c.notNull())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('context_window_tokens', 'integer', (c) => c.notNull())
      .addColumn('pricing', 'text')
      .addColumn('position', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('provider_models_pk', ['provider_id', 'vendor_model_id'])
      // "A workspace has at most one connection per provider and vendor-model pair."
      .addUniqueConstraint('provider_models_workspace_pair', ['workspace_id', 'provider', 'vendor_model_id'])
      .execute();

    await db.schema
      .createTable('agents')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('system_prompt', 'text', (c) => c.notNull())
      .addColumn('model_id', 'text')
      .addColumn('use_workspace_default_model', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('reasoning_level', 'text')
      .addColumn('tools', 'text', (c) => c.notNull())
      .addColumn('is_system', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('agents_workspace_slug', ['workspace_id', 'slug'])
      .execute();

    await db.schema
      .createTable('workspace_tools')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('parameters', 'text', (c) => c.notNull())
      .addColumn('http', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('workspace_tools_workspace_name', ['workspace_id', 'name'])
      .execute();

    await db.schema
      .createTable('users')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('name', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('users_workspace_email', ['workspace_id', 'email'])
      .execute();

    await db.schema
      .createTable('oauth_apps')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('client_secret_hash', 'text', (c) => c.notNull())
      .addColumn('redirect_uris', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('agent_id', 'text')
      .addColumn('session_id', 'text')
      .addColumn('api_key_id', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('spec', 'text', (c) => c.notNull())
      .addColumn('metadata', 'text', (c) => c.notNull())
      .addColumn('final_text', 'text')
      .addColumn('error', 'text')
      .addColumn('failure_reason', 'text')
      .addColumn('tokens', 'text')
      .addColumn('turns', 'integer')
      .addColumn('model', 'text')
      .addColumn('cancel_requested_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('ended_at', 'text')
      .execute();
    await db.schema
      .createIndex('runs_workspace_created')
      .on('runs')
      .columns(['workspace_id', 'created_at'])
      .execute();

    await db.schema
      .createTable('run_events')
      .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('run_events_pk', ['run_id', 'seq'])
      .execute();

    await db.schema
      .createTable('run_feedback')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
      .addColumn('verdict', 'text', (c) => c.notNull())
      .addColumn('explanation', 'text')
      .addColumn('content_snapshot', 'text')
      .addColumn('author_api_key_id', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      // One verdict per (workspace, run): a repeat call updates it.
      .addUniqueConstraint('run_feedback_workspace_run', ['workspace_id', 'run_id'])
      .execute();
    await db.schema
      .createIndex('run_feedback_workspace_updated')
      .on('run_feedback')
      .columns(['workspace_id', 'updated_at'])
      .execute();
  },

  async down(db: Kysely<unknown>) {
    for (const table of [
      'run_feedback',
      'run_events',
      'runs',
      'oauth_apps',
      'users',
      'workspace_tools',
      'agents',
      'provider_models',
      'workspace_providers',
      'offerings',
      'api_keys',
      'workspaces',
    ]) {
      await db.schema.dropTable(table).ifExists().execute();
    }
  },
};
