import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * A used authorization code is kept (marked `used_at`, then bound to the grant it created) instead of
 * deleted, so that presenting it again can revoke the tokens issued from it (RFC 6749 §4.1.2); it goes
 * with its grant. Client-credentials access tokens belong to an app with no end user, hence no grant:
 * they get a table of their own, deleted with the app.
 */
export const oauthCodeReuseAndAppTokens: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('oauth_authorization_codes').addColumn('used_at', 'text').execute();
    await db.schema
      .alterTable('oauth_authorization_codes')
      .addColumn('grant_id', 'text', (c) => c.references('oauth_grants.id').onDelete('cascade'))
      .execute();
    await db.schema
      .createIndex('oauth_authorization_codes_grant')
      .on('oauth_authorization_codes')
      .column('grant_id')
      .execute();
    await db.schema
      .createTable('oauth_app_access_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('app_id', 'text', (c) => c.notNull().references('oauth_apps.id').onDelete('cascade'))
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('oauth_app_access_tokens_app')
      .on('oauth_app_access_tokens')
      .columns(['app_id', 'expires_at'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('oauth_app_access_tokens').ifExists().execute();
    await db.schema.dropIndex('oauth_authorization_codes_grant').ifExists().execute();
    await db.schema.alterTable('oauth_authorization_codes').dropColumn('grant_id').execute();
    await db.schema.alterTable('oauth_authorization_codes').dropColumn('used_at').execute();
  },
};
