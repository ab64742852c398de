import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import type PostgreSQL from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { migrationProvider } from './migrations/index.ts';
import { withStatementCache } from './sqlite-statement-cache.ts';
import { SqliteCheckpointer } from './sqlite-checkpointer.ts';
import { ClassifyingPool } from './unreachable-database.ts';

const require = createRequire(import.meta.url);
import type { Database } from './schema.ts';

/** Where the database is, from `DATABASE_URL`. */
export type StorageConfig =
  { engine: 'sqlite'; path: string; url: string } | { engine: 'postgres'; url: string };

export type Engine = StorageConfig['engine'];

export interface Storage {
  readonly engine: Engine;
  readonly db: Kysely<Database>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenStorageOptions {
  /**
   * PostgreSQL only: an idle pooled connection failed (server restart, failover, an idle timeout, a
   * terminated backend). The pool drops it and the next query opens another; without a listener the
   * pool's error event would stop the process. Default: one line on stderr.
   */
  onIdleConnectionError?: (error: Error) => void;
  /** SQLite only: how often the checkpoint thread folds the WAL into the database (default 1 s). */
  sqliteCheckpointIntervalMs?: number;
}

/**
 * PostgreSQL: how long opening a connection may take before the query fails as unavailable (a
 * server that does not answer at all, rather than refusing): well within the 30 s a request may
 * wait, and long enough for a loaded server.
 */
const PG_CONNECT_TIMEOUT_MS = 5000;

export function openStorage(config: StorageConfig, options: OpenStorageOptions = {}): Storage {
  const db =
    config.engine === 'sqlite'
      ? openSqlite(config.path)
      : openPostgres(config.url, options.onIdleConnectionError ?? reportIdleConnectionError);
  const checkpointer =
    config.engine === 'sqlite' && config.path !== ':memory:'
      ? new SqliteCheckpointer(
          config.path,
          require.resolve('better-sqlite3'),
          options.sqliteCheckpointIntervalMs,
        )
      : undefined;
  return {
    engine: config.engine,
    db,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: async () => {
      await db.destroy();
      await checkpointer?.close();
    },
  };
}

function openSqlite(path: string): Kysely<Database> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const connection = new SQLite(path);
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  // Checkpoints run on a thread of their own (SqliteCheckpointer), never inside a commit.
  connection.pragma('wal_autocheckpoint = 0');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 5000');
  // Keep the planner's statistics current (cheap: it only analyzes tables that need it).
  connection.pragma('optimize = 0x10002');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(connection) }) });
}

function openPostgres(url: string, onIdleConnectionError: (error: Error) => void): Kysely<Database> {
  // Loaded on first use: an embedded (SQLite) service never pays for the PostgreSQL client.
  const { Pool } = require('pg') as typeof PostgreSQL;
  const pool = new Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
    keepAlive: true,
  });
  pool.on('error', onIdleConnectionError);
  // A connection that breaks while checked out (its backend terminated by a stopping server, 57P01)
  // emits `error` with no pool listener attached; the query it was running, or the next one, gets
  // the failure, so this listener only keeps the event from stopping the process.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: new ClassifyingPool(pool) }) });
}

function reportIdleConnectionError(error: Error): void {
  process.stderr.write(`an idle PostgreSQL connection failed and was dropped: ${error.message}\n`);
}

/** Applies every pending migration; throws with the failing migration's name. */
export async function migrateToLatest(storage: Storage): Promise<string[]> {
  const migrator = new Migrator({ db: storage.db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error) {
    const cause = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${cause}`, { cause: error });
  }
  return (results ?? [])
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
}
