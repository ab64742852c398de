import type { Schedule, ScheduleFire, ScheduleFireStatus } from '../../domain/schedules.ts';

/** A schedule as it is created: the store names it and stamps its times. */
export type NewSchedule = Omit<Schedule, 'id' | 'lastRunAt' | 'lastRunId' | 'createdAt' | 'updatedAt'>;

export type SchedulePatch = Partial<
  Pick<Schedule, 'cron' | 'timezone' | 'input' | 'metadata' | 'enabled' | 'nextRunAt'>
>;

/** A due schedule as the poll sees it: which time is due. */
export type DueSchedule = Pick<Schedule, 'id'> & { nextRunAt: string };

/** A fire as `GET {ws}/schedules/{id}/runs` lists it. */
export type ScheduleRunEntry = Pick<ScheduleFire, 'runId' | 'scheduledFor' | 'createdAt'>;

/** Schedules and the record of their fires (extensions §8). */
export interface ScheduleStore {
  create(input: NewSchedule): Promise<Schedule>;
  find(workspaceId: string, id: string): Promise<Schedule | undefined>;
  /** Any workspace's: the firing side reads the schedule of a fire it took over. */
  findById(id: string): Promise<Schedule | undefined>;
  list(workspaceId: string): Promise<Schedule[]>;
  update(workspaceId: string, id: string, patch: SchedulePatch): Promise<Schedule | undefined>;
  /** False when the workspace has no such schedule. From then on no new time of it is claimed. */
  delete(workspaceId: string, id: string): Promise<boolean>;
  /** Removes a deleted schedule's fire records (once no fire of it is in flight). */
  purgeFires(scheduleId: string): Promise<void>;
  /** Enabled schedules whose next time is at or before `now`, earliest first. */
  due(now: string, limit: number): Promise<DueSchedule[]>;
  /**
   * Moves the schedule from `expectedAt` to `nextRunAt` only if it is still enabled and still due at
   * `expectedAt` (another process has not moved it), and in the same transaction records `fire` for
   * `expectedAt` when given. Answers the schedule as it was claimed, or undefined when another
   * process won.
   */
  advance(
    id: string,
    expectedAt: string,
    nextRunAt: string | null,
    fire?: { runId: string; leaseUntil: string; now: string },
  ): Promise<Schedule | undefined>;
  /** Ends a claimed fire held under the lease ending at `leaseUntil` (ignored once the lease was taken over). */
  settleFire(
    fire: Pick<ScheduleFire, 'scheduleId' | 'scheduledFor' | 'runId' | 'leaseUntil'>,
    outcome: { status: Exclude<ScheduleFireStatus, 'claimed'>; error: string | null; now: string },
  ): Promise<boolean>;
  /** Takes over one claimed fire whose lease ended before `now`, leased again until `leaseUntil`. */
  takeOverAbandoned(now: string, leaseUntil: string): Promise<ScheduleFire | undefined>;
  /** Whether a fire of the schedule is claimed under a lease still running at `now`. */
  hasFireInFlight(scheduleId: string, now: string): Promise<boolean>;
  /** The schedule's fired runs newest first (by scheduled time), before `cursor` (a scheduled time). */
  runs(scheduleId: string, limit: number, cursor: string | undefined): Promise<ScheduleRunEntry[]>;
}
