/** What the admin API cases (test/admin/admin-api/<resource>.ts) share. */
import assert from 'node:assert/strict';
import type { Database } from '../../src/storage/schema.ts';
import type { TestResponse, TestServer } from '../support/test-server.ts';

const TABLES: readonly (keyof Database)[] = [
  'workspaces',
  'api_keys',
  'offerings',
  'workspace_providers',
  'provider_models',
  'agents',
  'workspace_tools',
  'users',
  'oauth_apps',
  'runs',
  'run_events',
];

/** Every stored cell of every table, as text: a secret stored in plaintext anywhere would show up here. */
export async function everyStoredValue(server: TestServer): Promise<string[]> {
  const db = server.service.resources.storage.db;
  const values: string[] = [];
  for (const table of TABLES) {
    const rows = (await db.selectFrom(table).selectAll().execute()) as Record<string, unknown>[];
    for (const row of rows) for (const value of Object.values(row)) values.push(String(value));
  }
  return values;
}

export function assertError(response: TestResponse, status: number, error: string): void {
  assert.equal(
    response.status,
    status,
    `expected ${status}, got ${response.status}: ${JSON.stringify(response.body)}`,
  );
  assert.equal(response.body.error, error, JSON.stringify(response.body));
  assert.equal(typeof response.body.message, 'string');
  assert.ok(response.body.message.length > 0, 'message is not empty');
}

export function assertInvalid(response: TestResponse, field?: string): void {
  assertError(response, 400, 'invalid_request');
  if (field !== undefined) assert.match(response.body.message, new RegExp(field), `message names '${field}'`);
}

export const ULID = '[0-9a-hjkmnp-tv-z]{26}';
export const UNKNOWN_ID = 'xyz_00000000000000000000000000';
