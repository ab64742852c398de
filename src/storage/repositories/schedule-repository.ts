import type { Kysely, Selectable } from 'kysely';
import { newId } from '../../domain/ids.ts';
import type { Schedule, ScheduleFire, ScheduleFireStatus, ScheduleInput } from '../../domain/schedules.ts';
import type {
  DueSchedule,
  NewSchedule,
  SchedulePatch,
  ScheduleRunEntry,
  ScheduleStore,
} from '../../engine/ports.ts';
import { fromJson, nowIso, toJson } from '../json-column.ts';
import type { Database, ScheduleFiresTable, SchedulesTable } from '../schema.ts';

/** Schedules and their fire records; reads and writes of the API are scoped to the workspace. */
export class ScheduleRepository implements ScheduleStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async create(input: NewSchedule): Promise<Schedule> {
    const now = nowIso();
    const row = await this.#db
      .insertInto('schedules')
      .values({
        id: newId('schedule'),
        workspace_id: input.workspaceId,
        api_key_id: input.apiKeyId,
        agent_id: input.agentId,
        cron: input.cron,
        timezone: input.timezone,
        input: toJson(input.input),
        session_id: input.sessionId,
        metadata: toJson(input.metadata),
        enabled: input.enabled ? 1 : 0,
        next_run_at: input.nextRunAt,
        last_run_at: null,
        last_run_id: null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toSchedule(row);
  }

  async find(workspaceId: string, id: string): Promise<Schedule | undefined> {
    const row = await this.#db
      .selectFrom('schedules')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toSchedule(row);
  }

  async findById(id: string): Promise<Schedule | undefined> {
    const row = await this.#db.selectFrom('schedules').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toSchedule(row);
  }

  async list(workspaceId: string): Promise<Schedule[]> {
    const rows = await this.#db
      .selectFrom('schedules')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('id')
      .execute();
    return rows.map(toSchedule);
  }

  async update(workspaceId: string, id: string, patch: SchedulePatch): Promise<Schedule | undefined> {
    const row = await this.#db
      .updateTable('schedules')
      .set({
        ...(patch.cron !== undefined && { cron: patch.cron }),
        ...(patch.timezone !== undefined && { timezone: patch.timezone }),
        ...(patch.input !== undefined && { input: toJson(patch.input) }),
        ...(patch.metadata !== undefined && { metadata: toJson(patch.metadata) }),
        ...(patch.enabled !== undefined && { enabled: patch.enabled ? 1 : 0 }),
        ...(patch.nextRunAt !== undefined && { next_run_at: patch.nextRunAt }),
        updated_at: nowIso(),
      })
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row && toSchedule(row);
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('schedules')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async purgeFires(scheduleId: string): Promise<void> {
    await this.#db.deleteFrom('schedule_fires').where('schedule_id', '=', scheduleId).execute();
  }

  async due(now: string, limit: number): Promise<DueSchedule[]> {
    const rows = await this.#db
      .selectFrom('schedules')
      .select(['id', 'next_run_at'])
      .where('enabled', '=', 1)
      .where('next_run_at', '<=', now)
      .orderBy('next_run_at')
      .limit(limit)
      .execute();
    return rows.flatMap((row) =>
      row.next_run_at === null ? [] : [{ id: row.id, nextRunAt: row.next_run_at }],
    );
  }

  async advance(
    id: string,
    expectedAt: string,
    nextRunAt: string | null,
    fire?: { runId: string; leaseUntil: string; now: string },
  ): Promise<Schedule | undefined> {
    return this.#db
      .transaction()
      .execute(async (trx) => {
        // The conditional update is the claim: on PostgreSQL a concurrent one waits for this row's lock
        // and then finds `next_run_at` moved on; SQLite runs one write transaction at a time.
        const row = await trx
          .updateTable('schedules')
          .set({ next_run_at: nextRunAt })
          .where('id', '=', id)
          .where('enabled', '=', 1)
          .where('next_run_at', '=', expectedAt)
          .returningAll()
          .executeTakeFirst();
        if (!row) return undefined;
        if (fire) {
          // The key (schedule, time) is the second guard: the same time is never recorded twice.
          const inserted = await trx
            .insertInto('schedule_fires')
            .values({
              schedule_id: id,
              scheduled_for: expectedAt,
              run_id: fire.runId,
              status: 'claimed',
              error: null,
              lease_until: fire.leaseUntil,
              created_at: fire.now,
            })
            .onConflict((conflict) => conflict.doNothing())
            .returning('schedule_id')
            .executeTakeFirst();
          // Rolls the move back too: the time stays with whoever recorded it.
          if (!inserted) throw new FireTakenError();
        }
        return toSchedule(row);
      })
      .catch((error: unknown) => {
        if (error instanceof FireTakenError) return undefined;
        throw error;
      });
  }

  async settleFire(
    fire: Pick<ScheduleFire, 'scheduleId' | 'scheduledFor' | 'runId' | 'leaseUntil'>,
    outcome: { status: Exclude<ScheduleFireStatus, 'claimed'>; error: string | null; now: string },
  ): Promise<boolean> {
    return this.#db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('schedule_fires')
        .set({
          status: outcome.status,
          error: outcome.error,
          ...(outcome.status === 'fired' && { created_at: outcome.now }),
        })
        .where('schedule_id', '=', fire.scheduleId)
        .where('scheduled_for', '=', fire.scheduledFor)
        .where('status', '=', 'claimed')
        .where('lease_until', '=', fire.leaseUntil)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      if (outcome.status === 'fired') {
        await trx
          .updateTable('schedules')
          .set({ last_run_at: outcome.now, last_run_id: fire.runId })
          .where('id', '=', fire.scheduleId)
          .where((eb) => eb.or([eb('last_run_at', 'is', null), eb('last_run_at', '<=', outcome.now)]))
          .execute();
      }
      return true;
    });
  }

  async takeOverAbandoned(now: string, leaseUntil: string): Promise<ScheduleFire | undefined> {
    const candidates = await this.#db
      .selectFrom('schedule_fires')
      .selectAll()
      .where('status', '=', 'claimed')
      .where('lease_until', '<', now)
      .orderBy('lease_until')
      .limit(5)
      .execute();
    for (const candidate of candidates) {
      const taken = await this.#db
        .updateTable('schedule_fires')
        .set({ lease_until: leaseUntil })
        .where('schedule_id', '=', candidate.schedule_id)
        .where('scheduled_for', '=', candidate.scheduled_for)
        .where('status', '=', 'claimed')
        .where('lease_until', '=', candidate.lease_until)
        .returningAll()
        .executeTakeFirst();
      if (taken) return toFire(taken);
    }
    return undefined;
  }

  async hasFireInFlight(scheduleId: string, now: string): Promise<boolean> {
    const row = await this.#db
      .selectFrom('schedule_fires')
      .select('schedule_id')
      .where('schedule_id', '=', scheduleId)
      .where('status', '=', 'claimed')
      .where('lease_until', '>=', now)
      .executeTakeFirst();
    return row !== undefined;
  }

  async runs(scheduleId: string, limit: number, cursor: string | undefined): Promise<ScheduleRunEntry[]> {
    let query = this.#db
      .selectFrom('schedule_fires')
      .select(['run_id', 'scheduled_for', 'created_at'])
      .where('schedule_id', '=', scheduleId)
      .where('status', '=', 'fired');
    if (cursor !== undefined) query = query.where('scheduled_for', '<', cursor);
    const rows = await query.orderBy('scheduled_for', 'desc').limit(limit).execute();
    return rows.map((row) => ({
      runId: row.run_id,
      scheduledFor: row.scheduled_for,
      createdAt: row.created_at,
    }));
  }
}

class FireTakenError extends Error {}

function toSchedule(row: Selectable<SchedulesTable>): Schedule {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    apiKeyId: row.api_key_id,
    agentId: row.agent_id,
    cron: row.cron,
    timezone: row.timezone,
    input: fromJson<ScheduleInput>(row.input),
    sessionId: row.session_id,
    metadata: fromJson<Record<string, string>>(row.metadata),
    enabled: row.enabled === 1,
    nextRunAt: row.next_run_at,
    lastRunAt: row.last_run_at,
    lastRunId: row.last_run_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toFire(row: Selectable<ScheduleFiresTable>): ScheduleFire {
  return {
    scheduleId: row.schedule_id,
    scheduledFor: row.scheduled_for,
    runId: row.run_id,
    status: row.status as ScheduleFireStatus,
    error: row.error,
    leaseUntil: row.lease_until,
    createdAt: row.created_at,
  };
}
