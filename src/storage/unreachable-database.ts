import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { StoreUnavailableError } from '../domain/errors.ts';

/**
 * SQLSTATEs of a database that cannot be reached: class 08 (connection exceptions) and the server
 * stopping or starting (57P01 `admin_shutdown` from `pg_ctl stop -m fast`, 57P02 `crash_shutdown`,
 * 57P03 `cannot_connect_now`).
 */
const UNREACHABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123])$/;

/** Socket errors of a server that is down, restarting or cut off. */
const UNREACHABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What `pg` and `pg-pool` say, without a code, when a connection breaks or does not open in time. */
const UNREACHABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/** True for a `pg` failure that says the database is unreachable, not that a statement is wrong. */
export function isDatabaseUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNREACHABLE_SQLSTATE.test(code) || UNREACHABLE_SOCKET_CODES.has(code))) {
    return true;
  }
  return UNREACHABLE_MESSAGES.some((message) => error.message.startsWith(message));
}

/** The driver's error, or the domain's `StoreUnavailableError` (with it as cause) when the database is unreachable. */
export function classifyDatabaseError(error: unknown): unknown {
  return isDatabaseUnreachable(error) ? new StoreUnavailableError('database', error) : error;
}

/**
 * The `pg` pool as Kysely sees it, with every failure to connect or to query classified once: the
 * engine and the HTTP layer get `StoreUnavailableError` for an unreachable database, whatever
 * repository ran the statement.
 */
export class ClassifyingPool implements PostgresPool {
  readonly #pool: PostgresPool;
  /** One wrapper per pooled client, so Kysely's per-client connection cache keeps working. */
  readonly #clients = new WeakMap<PostgresPoolClient, PostgresPoolClient>();

  constructor(pool: PostgresPool) {
    this.#pool = pool;
  }

  async connect(): Promise<PostgresPoolClient> {
    let client: PostgresPoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw classifyDatabaseError(error);
    }
    let wrapped = this.#clients.get(client);
    if (!wrapped) {
      wrapped = classifyingClient(client);
      this.#clients.set(client, wrapped);
    }
    return wrapped;
  }

  end(): Promise<void> {
    return this.#pool.end();
  }

  get options(): object {
    return this.#pool.options;
  }
}

function classifyingClient(client: PostgresPoolClient): PostgresPoolClient {
  function query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  function query<R>(
    statement: string | PostgresCursor<R>,
    parameters?: readonly unknown[],
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof statement !== 'string') return client.query(statement);
    return client.query<R>(statement, parameters ?? []).catch((error: unknown) => {
      throw classifyDatabaseError(error);
    });
  }
  return {
    query,
    // Kysely says whether the connection is to be discarded (`pg-pool` drops it then).
    release: (destroy?: boolean) => client.release(destroy),
  };
}
