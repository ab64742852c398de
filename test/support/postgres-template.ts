import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrateToLatest, openStorage } from '../../src/storage/database.ts';
import { WAIT_CAP_MS } from './waits.ts';

/**
 * A database on the test PostgreSQL server with every migration applied, that fresh test databases
 * are cloned from (`create database … template …`): a clone takes a fraction of the time of
 * applying the migrations, which every service start on a new database of the scale-out suite paid.
 *
 * The name carries a hash of the migrations' source, so a changed or added migration gets a template
 * of its own. Templates are built under an advisory lock (test files run in parallel processes),
 * under a temporary name renamed once complete, and accept no connections (a clone needs its template
 * unused). A template other runs have not used for a day is dropped when a new one is built.
 */
const PREFIX = 'agent_runs_template_';
const STALE_AFTER_MS = 24 * 60 * 60 * 1000;
/** Any 64-bit number that other users of the server's advisory locks are unlikely to pick. */
const LOCK_KEY = 7_416_520_311;
/** 55006: the database is being accessed by other users (a closed pool's backends still exiting). */
const OBJECT_IN_USE = '55006';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SOURCES = [
  join(REPO, 'src/storage/dialect.ts'),
  ...readdirSync(join(REPO, 'src/storage/migrations'))
    .sort()
    .map((file) => join(REPO, 'src/storage/migrations', file)),
];

let template: Promise<string> | undefined;

/** The name of the migrated template database on the server at `serverUrl`, built on first use. */
export function migratedTemplate(serverUrl: string): Promise<string> {
  template ??= ensureTemplate(serverUrl);
  return template;
}

function templateName(): string {
  const hash = createHash('sha256');
  for (const source of SOURCES) hash.update(source).update(readFileSync(source));
  return `${PREFIX}${hash.digest('hex').slice(0, 16)}`;
}

async function ensureTemplate(serverUrl: string): Promise<string> {
  const name = templateName();
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_KEY]);
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      await dropStaleTemplates(client);
      await buildTemplate(client, serverUrl, name);
    }
    // When a run last used it: templates unused for a day are dropped (above) when another is built.
    await client.query(`comment on database ${name} is ${pg.escapeLiteral(new Date().toISOString())}`);
    return name;
  } finally {
    await client.end();
  }
}

async function buildTemplate(client: pg.Client, serverUrl: string, name: string): Promise<void> {
  const building = `${name}_building`;
  await client.query(`drop database if exists ${building} with (force)`);
  await client.query(`create database ${building}`);
  const url = new URL(serverUrl);
  url.pathname = `/${building}`;
  const storage = openStorage({ engine: 'postgres', url: url.toString() });
  try {
    await migrateToLatest(storage);
  } finally {
    await storage.close();
  }
  await whileInUse(() => client.query(`alter database ${building} rename to ${name}`));
  await client.query(`alter database ${name} with allow_connections false`);
}

/** Templates whose comment (the last time a run used them) is older than a day. */
async function dropStaleTemplates(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ datname: string; used: string | null }>(
    `select datname, shobj_description(oid, 'pg_database') as used from pg_database where datname like $1`,
    [`${PREFIX}%`],
  );
  for (const { datname, used } of rows) {
    const usedAt = Date.parse(used ?? '');
    if (Number.isNaN(usedAt) || Date.now() - usedAt > STALE_AFTER_MS) {
      await client.query(`drop database if exists ${datname} with (force)`);
    }
  }
}

/** Retries `action` while the database it needs is still held by backends that are exiting. */
async function whileInUse(action: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + WAIT_CAP_MS;
  for (;;) {
    try {
      await action();
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== OBJECT_IN_USE || Date.now() > deadline) throw error;
      await sleep(20);
    }
  }
}

/** Clones the template into a new database `name` (retried while a build's last backend exits). */
export async function cloneTemplate(serverUrl: string, name: string): Promise<void> {
  const source = await migratedTemplate(serverUrl);
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await whileInUse(() => client.query(`create database ${name} template ${source}`));
  } finally {
    await client.end();
  }
}
