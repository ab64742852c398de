/**
 * What the scale-out deployment asks of PostgreSQL and Redis, read on the servers' side: the bench
 * starts a PostgreSQL cluster and a Redis server of its own (the machine's shared ones count other
 * suites' work too), and reads their counters and CPU before and after each phase.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';
import { processCpuMs } from './machine.ts';

export interface StatementCount {
  query: string;
  /** Sent by a client (a round trip); false: run inside another statement (a trigger's, such as a foreign-key check). */
  toplevel: boolean;
  calls: number;
  rows: number;
}

/** One reading of both servers; differences of two readings are what a phase cost. */
export interface ServerReading {
  atMs: number;
  /** pg_stat_database of the service's database (flushed by each backend at most once a second). */
  postgres: {
    commits: number;
    rollbacks: number;
    inserted: number;
    updated: number;
    deleted: number;
    returned: number;
    fetched: number;
    /** WAL written (bytes, the whole cluster) and the service's database's size (bytes). */
    walBytes: number;
    databaseBytes: number;
  };
  /** pg_stat_statements of the service's database, by normalized statement text; undefined without the extension. */
  statements: Map<string, StatementCount> | undefined;
  /** Redis INFO commandstats: calls by command name (commands run by scripts included). */
  redis: Map<string, number>;
  cpuMs: { postgres: number; redis: number };
}

export type ServerDelta = Omit<ServerReading, 'atMs' | 'statements'> & {
  seconds: number;
  statements: (StatementCount & { key: string })[] | undefined;
};

/** PostgreSQL as a server defaults it (fsync and synchronous commits on), with pg_stat_statements loaded. */
export const POSTGRES_BENCH_SETTINGS = [
  'fsync=on',
  'synchronous_commit=on',
  'full_page_writes=on',
  'shared_preload_libraries=pg_stat_statements',
  'pg_stat_statements.track=all',
  'pg_stat_statements.max=1000',
];

export class ServerCounters {
  readonly #admin: pg.Client;
  readonly #redis: Redis;
  readonly #database: string;
  #statements = true;

  private constructor(admin: pg.Client, redis: Redis, database: string) {
    this.#admin = admin;
    this.#redis = redis;
    this.#database = database;
  }

  /**
   * `adminUrl`: the cluster's `postgres` database, where the bench's own queries run, apart from
   * `database` (the service's), whose counters they would otherwise add to.
   */
  static async open(adminUrl: string, database: string, redisUrl: string): Promise<ServerCounters> {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    const counters = new ServerCounters(admin, redis, database);
    try {
      await admin.query('create extension if not exists pg_stat_statements');
    } catch {
      counters.#statements = false;
    }
    return counters;
  }

  async read(): Promise<ServerReading> {
    const { rows } = await this.#admin.query<Record<string, string>>(
      `select xact_commit, xact_rollback, tup_inserted, tup_updated, tup_deleted, tup_returned, tup_fetched,
              pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') as wal_bytes, pg_database_size(datname) as database_bytes
         from pg_stat_database where datname = $1`,
      [this.#database],
    );
    const row = rows[0] ?? {};
    const n = (key: string) => Number(row[key] ?? NaN);
    const statements = this.#statements ? await this.#readStatements() : undefined;
    const redis = parseCommandStats(await this.#redis.info('commandstats'));
    const redisCpu = parseInfo(await this.#redis.info('cpu'));
    return {
      atMs: performance.now(),
      postgres: {
        commits: n('xact_commit'),
        rollbacks: n('xact_rollback'),
        inserted: n('tup_inserted'),
        updated: n('tup_updated'),
        deleted: n('tup_deleted'),
        returned: n('tup_returned'),
        fetched: n('tup_fetched'),
        walBytes: n('wal_bytes'),
        databaseBytes: n('database_bytes'),
      },
      statements,
      redis,
      cpuMs: {
        postgres: await this.#postgresCpuMs(),
        redis: (Number(redisCpu.used_cpu_user ?? NaN) + Number(redisCpu.used_cpu_sys ?? NaN)) * 1000,
      },
    };
  }

  async #readStatements(): Promise<Map<string, StatementCount>> {
    const { rows } = await this.#admin.query<{
      query: string;
      toplevel: boolean;
      calls: string;
      rows: string;
    }>(
      `select s.query, s.toplevel, sum(s.calls) as calls, sum(s.rows) as rows
         from pg_stat_statements s join pg_database d on d.oid = s.dbid
        where d.datname = $1 group by s.query, s.toplevel`,
      [this.#database],
    );
    return new Map(
      rows.map((row) => [
        `${row.toplevel ? '' : 'nested '}${row.query}`,
        { query: row.query, toplevel: row.toplevel, calls: Number(row.calls), rows: Number(row.rows) },
      ]),
    );
  }

  /**
   * CPU of the whole PostgreSQL server: the postmaster (with the children it reaped: cutime and
   * cstime) and every process it runs now (backends, checkpointer, WAL writer, autovacuum).
   */
  async #postgresCpuMs(): Promise<number> {
    const { rows } = await this.#admin.query<{ pid: number }>('select pg_backend_pid() as pid');
    const postmaster = statFields(rows[0]?.pid ?? 0)?.[1];
    if (postmaster === undefined) return NaN;
    const own = statFields(Number(postmaster));
    if (!own) return NaN;
    let total = ((Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])) * 1000) / 100;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const fields = statFields(Number(entry));
      if (fields?.[1] === postmaster) total += processCpuMs(Number(entry));
    }
    return total;
  }

  async close(): Promise<void> {
    await this.#admin.end().catch(() => {});
    this.#redis.disconnect();
  }
}

/** What happened between two readings. */
export function difference(before: ServerReading, after: ServerReading): ServerDelta {
  const postgres = Object.fromEntries(
    Object.entries(after.postgres).map(([key, value]) => [
      key,
      value - before.postgres[key as keyof ServerReading['postgres']],
    ]),
  ) as ServerReading['postgres'];
  const redis = new Map<string, number>();
  for (const [command, calls] of after.redis) {
    const added = calls - (before.redis.get(command) ?? 0);
    if (added > 0) redis.set(command, added);
  }
  const statements = after.statements
    ? [...after.statements]
        .map(([key, entry]) => {
          const earlier = before.statements?.get(key);
          return {
            key,
            query: entry.query,
            toplevel: entry.toplevel,
            calls: entry.calls - (earlier?.calls ?? 0),
            rows: entry.rows - (earlier?.rows ?? 0),
          };
        })
        .filter((entry) => entry.calls > 0)
        .sort((a, b) => b.calls - a.calls)
    : undefined;
  return {
    seconds: (after.atMs - before.atMs) / 1000,
    postgres,
    statements,
    redis,
    cpuMs: {
      postgres: after.cpuMs.postgres - before.cpuMs.postgres,
      redis: after.cpuMs.redis - before.cpuMs.redis,
    },
  };
}

/**
 * A phase's counts less what the deployment does with no run at all (sweeps, leases, BullMQ's
 * polling) over the same time, measured in an idle window of `idle.seconds`.
 */
export function lessIdle(phase: ServerDelta, idle: ServerDelta): ServerDelta {
  const share = phase.seconds / idle.seconds;
  const scaled = (value: number, idleValue: number) => value - idleValue * share;
  const idleStatements = new Map((idle.statements ?? []).map((entry) => [entry.key, entry]));
  return {
    seconds: phase.seconds,
    postgres: Object.fromEntries(
      Object.entries(phase.postgres).map(([key, value]) => [
        key,
        scaled(value, idle.postgres[key as keyof ServerDelta['postgres']]),
      ]),
    ) as ServerDelta['postgres'],
    statements: phase.statements?.map((entry) => ({
      ...entry,
      calls: scaled(entry.calls, idleStatements.get(entry.key)?.calls ?? 0),
      rows: scaled(entry.rows, idleStatements.get(entry.key)?.rows ?? 0),
    })),
    redis: new Map(
      [...phase.redis].map(([command, calls]) => [command, scaled(calls, idle.redis.get(command) ?? 0)]),
    ),
    cpuMs: {
      postgres: scaled(phase.cpuMs.postgres, idle.cpuMs.postgres),
      redis: scaled(phase.cpuMs.redis, idle.cpuMs.redis),
    },
  };
}

/** Fields of /proc/PID/stat after the command name: [state, ppid, …]; undefined if the process is gone. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

function parseInfo(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) fields[line.slice(0, at)] = line.slice(at + 1);
  }
  return fields;
}

/** `cmdstat_evalsha:calls=12,usec=…` lines → calls by command name. */
function parseCommandStats(text: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const [key, value] of Object.entries(parseInfo(text))) {
    const match = /(?:^|,)calls=(\d+)/.exec(value);
    if (key.startsWith('cmdstat_') && match) calls.set(key.slice('cmdstat_'.length), Number(match[1]));
  }
  return calls;
}
