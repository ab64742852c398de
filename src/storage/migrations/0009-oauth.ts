import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * OAuth: every step of the authorization flow lives here, so any API replica can serve any step.
 * A browser session (the sign-in cookie's hash and its CSRF secret), an authorization request between
 * the authorization endpoint and consent, one-time codes, grants (what a user allowed an app, with the
 * persistent refresh token's hash) and access tokens (hashes, one hour). Deleting an app, a user or a
 * grant deletes what hangs off it.
 */
export const oauth: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('oauth_browser_sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('csrf_secret', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('oauth_browser_sessions_expiry')
      .on('oauth_browser_sessions')
      .column('expires_at')
      .execute();
    await db.schema
      .createTable('oauth_authorization_requests')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('app_id', 'text', (c) => c.notNull().references('oauth_apps.id').onDelete('cascade'))
      .addColumn('redirect_uri', 'text', (c) => c.notNull())
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('state', 'text')
      .addColumn('code_challenge', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('oauth_authorization_requests_expiry')
      .on('oauth_authorization_requests')
      .column('expires_at')
      .execute();
    await db.schema
      .createTable('oauth_authorization_codes')
      .addColumn('code_hash', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('app_id', 'text', (c) => c.notNull().references('oauth_apps.id').onDelete('cascade'))
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('redirect_uri', 'text', (c) => c.notNull())
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('agent_ids', 'text', (c) => c.notNull())
      .addColumn('code_challenge', 'text', (c) => c.notNull())
      .addColumn('code_challenge_method', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('oauth_authorization_codes_expiry')
      .on('oauth_authorization_codes')
      .column('expires_at')
      .execute();
    await db.schema
      .createTable('oauth_grants')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('app_id', 'text', (c) => c.notNull().references('oauth_apps.id').onDelete('cascade'))
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('agent_ids', 'text', (c) => c.notNull())
      .addColumn('refresh_token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('revoked_at', 'text')
      .execute();
    await db.schema.createIndex('oauth_grants_app').on('oauth_grants').column('app_id').execute();
    await db.schema.createIndex('oauth_grants_user').on('oauth_grants').column('user_id').execute();
    await db.schema
      .createIndex('oauth_grants_workspace')
      .on('oauth_grants')
      .columns(['workspace_id', 'created_at'])
      .execute();
    await db.schema
      .createTable('oauth_access_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('grant_id', 'text', (c) => c.notNull().references('oauth_grants.id').onDelete('cascade'))
      // A refresh may ask for fewer scopes than the grant has.
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('oauth_access_tokens_grant')
      .on('oauth_access_tokens')
      .column('grant_id')
      .execute();
  },
  async down(db: Kysely<unknown>) {
    for (const table of [
      'oauth_access_tokens',
      'oauth_grants',
      'oauth_authorization_codes',
      'oauth_authorization_requests',
      'oauth_browser_sessions',
    ]) {
      await db.schema.dropTable(table).ifExists().execute();
    }
  },
};
