import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { StorageConfig } from '../../src/storage/database.ts';
import { migrateToLatest, openStorage, type Engine, type Storage } from '../../src/storage/database.ts';
import { cloneTemplate } from './postgres-template.ts';

/** PostgreSQL used by `npm run test:scale` (this machine's server by default). */
export const TEST_POSTGRES_URL =
  process.env.AGENT_RUNS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.AGENT_RUNS_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** `npm test` runs on embedded SQLite only; `npm run test:scale` adds PostgreSQL to every storage suite. */
export const SCALE = process.env.AGENT_RUNS_TEST_SCALE === '1';
export const ENGINES: readonly Engine[] = SCALE ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestDatabase {
  config: StorageConfig;
  drop(): Promise<void>;
}

/**
 * A fresh database on the engine: a temp SQLite file, or a new database on the PostgreSQL server (not
 * a schema in a shared one: the migrator's catalog reads span every schema of a database, and would
 * race with other suites dropping theirs). Empty, except with `migrated` on PostgreSQL: a clone of the
 * template with every migration applied (`postgres-template.ts`), quicker than applying them. A SQLite
 * file is always empty: applying the migrations there takes no longer than copying a file.
 */
export async function createTestDatabase(
  engine: Engine,
  { migrated = false }: { migrated?: boolean } = {},
): Promise<TestDatabase> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'agent-runs-test-'));
    const path = join(dir, 'test.db');
    return {
      config: { engine: 'sqlite', path, url: `sqlite:${path}` },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `agent_runs_t_${randomBytes(6).toString('hex')}`;
  if (migrated) await cloneTemplate(TEST_POSTGRES_URL, name);
  else await serverQuery(`create database ${name}`);
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    config: { engine: 'postgres', url: url.toString() },
    drop: () => serverQuery(`drop database if exists ${name} with (force)`),
  };
}

async function serverQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A migrated storage on a fresh database; `close()` also drops the database. */
export async function openTestStorage(engine: Engine): Promise<Storage & { drop(): Promise<void> }> {
  const database = await createTestDatabase(engine, { migrated: true });
  const storage = openStorage(database.config);
  await migrateToLatest(storage); // on PostgreSQL the clone has them all: nothing to apply
  return {
    ...storage,
    drop: async () => {
      await storage.close();
      await database.drop();
    },
  };
}
