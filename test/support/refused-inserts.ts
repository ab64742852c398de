import { sql } from 'kysely';
import type { Storage } from '../../src/storage/database.ts';

export interface InsertRefusal {
  /** Lets the inserts through again. */
  drop(): Promise<void>;
}

/**
 * A real refusal by the database, what a failing commit does: every insert into `run_events` whose
 * row matches `condition` (SQL over `new`, the same on both engines) is refused with an error until
 * the refusal is dropped. On PostgreSQL the refusal can come after `pgDelaySeconds`, so the inserts
 * queued behind it wait on the failing commit.
 */
export async function refuseEventInserts(
  storage: Storage,
  name: string,
  condition: string,
  options: { pgDelaySeconds?: number } = {},
): Promise<InsertRefusal> {
  const { db } = storage;
  const trigger = sql.raw(name);
  const when = sql.raw(condition);
  if (storage.engine === 'sqlite') {
    await sql`drop trigger if exists ${trigger}`.execute(db);
    await sql`
      create trigger ${trigger} before insert on run_events when ${when}
      begin select raise(abort, 'simulated commit failure'); end
    `.execute(db);
    return { drop: async () => void (await sql`drop trigger if exists ${trigger}`.execute(db)) };
  }
  const delay = sql.raw(String(options.pgDelaySeconds ?? 0));
  await sql`
    create or replace function ${trigger}() returns trigger language plpgsql as $$
    begin
      if ${when} then
        perform pg_sleep(${delay});
        raise exception 'simulated commit failure';
      end if;
      return new;
    end $$
  `.execute(db);
  await sql`drop trigger if exists ${trigger} on run_events`.execute(db);
  await sql`create trigger ${trigger} before insert on run_events for each row execute function ${trigger}()`.execute(
    db,
  );
  return { drop: async () => void (await sql`drop trigger if exists ${trigger} on run_events`.execute(db)) };
}
