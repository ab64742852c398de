import type { Database, Statement } from 'better-sqlite3';

const CACHE_LIMIT = 500;

/**
 * The better-sqlite3 connection as Kysely sees it, with prepared statements
 * reused by SQL text: Kysely prepares on every query, and preparing was a
 * large share of the per-run CPU. The query shapes of the service are few and
 * fixed, so a small LRU holds them all.
 */
export function withStatementCache(database: Database): Database {
  const cache = new Map<string, Statement>();
  const prepare = database.prepare.bind(database);
  return new Proxy(database, {
    get(target, property, receiver) {
      if (property !== 'prepare') return Reflect.get(target, property, receiver) as unknown;
      return (sql: string) => {
        let statement = cache.get(sql);
        if (statement) {
          cache.delete(sql);
        } else {
          statement = prepare(sql);
          if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
        }
        cache.set(sql, statement);
        return statement;
      };
    },
  });
}
