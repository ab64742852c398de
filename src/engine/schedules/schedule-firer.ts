import type { Logger } from 'pino';
import type { ApiKey } from '../../domain/api-key.ts';
import { newId } from '../../domain/ids.ts';
import { rateLimitFor } from '../../domain/rate-limits.ts';
import { LATE_FIRE_LIMIT_MS, type Schedule, type ScheduleFire } from '../../domain/schedules.ts';
import type { Workspace } from '../../domain/workspace.ts';
import type { RateCounters, RunMetrics, RunStore, ScheduleStore } from '../ports.ts';
import type { RunCredential } from '../lifecycle/agent-access.ts';
import type { RunService } from '../lifecycle/run-service.ts';
import type { SessionService } from '../lifecycle/session-service.ts';
import { cronTimes } from './cron-times.ts';

/** How long a process holds a claimed fire while it creates the run; past it another process takes over. */
export const FIRE_LEASE_MS = 15_000;
/** Due schedules read per query; a poll reads again until none is due. */
const DUE_BATCH = 20;
const MAX_BATCHES_PER_POLL = 50;

export interface ScheduleFirerDeps {
  schedules: ScheduleStore;
  runStates: Pick<RunStore, 'findState'>;
  apiKeys: { findById(workspaceId: string, id: string): Promise<ApiKey | undefined> };
  workspaces: { findById(id: string): Promise<Workspace | undefined> };
  runs: Pick<RunService, 'create'>;
  sessions: Pick<SessionService, 'message'>;
  rateCounters: RateCounters;
  metrics: Pick<RunMetrics, 'scheduledRun'>;
  logger: Logger;
  pollMs: number;
}

type FireOutcome = { status: 'fired' | 'failed'; error: string | null };

/**
 * Fires due schedules (extensions §8). Every scheduled time is claimed once across all processes by
 * the transaction that moves the schedule on and records the (schedule, time) row; the run's id is
 * reserved in that row, so a fire whose process died is finished by another with the same run, never
 * a second one. A time first seen 60 s or more after it passed is skipped.
 */
export class ScheduleFirer {
  readonly #deps: ScheduleFirerDeps;
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  #closed = false;

  constructor(deps: ScheduleFirerDeps) {
    this.#deps = deps;
  }

  start(): void {
    this.#schedulePoll(0);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#polling;
  }

  #schedulePoll(delayMs: number): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#polling = this.#poll().finally(() => {
        this.#polling = undefined;
        this.#schedulePoll(this.#deps.pollMs);
      });
    }, delayMs);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    try {
      await this.#finishAbandoned();
      for (let batch = 0; batch < MAX_BATCHES_PER_POLL && !this.#closed; batch += 1) {
        const due = await this.#deps.schedules.due(new Date().toISOString(), DUE_BATCH);
        if (due.length === 0) return;
        for (const { id, nextRunAt } of due) await this.#claimAndFire(id, nextRunAt);
      }
    } catch (error) {
      this.#deps.logger.warn({ err: error }, 'schedule poll failed; the next poll tries again');
    }
  }

  async #claimAndFire(scheduleId: string, dueAt: string): Promise<void> {
    const { schedules, logger } = this.#deps;
    const schedule = await schedules.findById(scheduleId);
    if (!schedule?.enabled || schedule.nextRunAt !== dueAt) return;
    let times;
    try {
      times = cronTimes(schedule.cron, schedule.timezone);
    } catch (error) {
      // Checked at creation; a time zone the runtime no longer knows stops the schedule rather than the poll.
      logger.error({ scheduleId, err: error }, 'schedule cannot be read; it will not fire');
      await schedules.advance(scheduleId, dueAt, null);
      return;
    }
    const now = Date.now();
    const dueMs = Date.parse(dueAt);
    if (now - dueMs >= LATE_FIRE_LIMIT_MS) {
      // No process could fire it in time: skip it and every other time that is as late.
      const next = times.nextAfter(new Date(now - LATE_FIRE_LIMIT_MS));
      if (await schedules.advance(scheduleId, dueAt, next?.toISOString() ?? null)) {
        logger.warn({ scheduleId, scheduledFor: dueAt }, 'scheduled time skipped: 60 s or more late');
      }
      return;
    }
    const fire = {
      scheduleId,
      scheduledFor: dueAt,
      runId: newId('run'),
      leaseUntil: new Date(now + FIRE_LEASE_MS).toISOString(),
    };
    const next = times.nextAfter(new Date(dueMs));
    const claimed = await schedules.advance(scheduleId, dueAt, next?.toISOString() ?? null, {
      runId: fire.runId,
      leaseUntil: fire.leaseUntil,
      now: new Date(now).toISOString(),
    });
    if (claimed) await this.#fire(claimed, fire);
  }

  /** Fires whose process died between the claim and the end: finished here with the reserved run id. */
  async #finishAbandoned(): Promise<void> {
    const { schedules, runStates, logger } = this.#deps;
    for (;;) {
      const leaseUntil = new Date(Date.now() + FIRE_LEASE_MS).toISOString();
      const fire = await schedules.takeOverAbandoned(new Date().toISOString(), leaseUntil);
      if (!fire) return;
      const schedule = await schedules.findById(fire.scheduleId);
      const created = schedule && (await runStates.findState(schedule.workspaceId, fire.runId));
      if (schedule && (created || Date.now() - Date.parse(fire.scheduledFor) < LATE_FIRE_LIMIT_MS)) {
        logger.info({ scheduleId: fire.scheduleId, scheduledFor: fire.scheduledFor }, 'taking over a fire');
        await this.#fire(schedule, fire);
      } else {
        await schedules.settleFire(fire, {
          status: 'skipped',
          error: schedule
            ? 'its process stopped and it was then 60 s or more late'
            : 'the schedule was deleted',
          now: new Date().toISOString(),
        });
      }
    }
  }

  async #fire(
    schedule: Schedule,
    fire: Pick<ScheduleFire, 'scheduleId' | 'scheduledFor' | 'runId' | 'leaseUntil'>,
  ): Promise<void> {
    const { schedules, logger, metrics } = this.#deps;
    let outcome: FireOutcome;
    try {
      outcome = await this.#createRun(schedule, fire.runId);
    } catch (error) {
      // A creation that lost a race with a takeover of the same fire still made the run.
      const made = await this.#deps.runStates
        .findState(schedule.workspaceId, fire.runId)
        .catch(() => undefined);
      outcome = made
        ? { status: 'fired', error: null }
        : { status: 'failed', error: error instanceof Error ? error.message : String(error) };
    }
    const settled = await schedules.settleFire(fire, { ...outcome, now: new Date().toISOString() });
    if (outcome.status === 'fired') {
      if (settled) metrics.scheduledRun();
      logger.info(
        { scheduleId: schedule.id, scheduledFor: fire.scheduledFor, runId: fire.runId },
        'schedule fired',
      );
    } else {
      logger.warn(
        { scheduleId: schedule.id, scheduledFor: fire.scheduledFor, reason: outcome.error },
        'schedule fire created no run',
      );
    }
  }

  /** The run, as `POST {ws}/agent-runs` (or a session message) by the schedule's key would create it. */
  async #createRun(schedule: Schedule, runId: string): Promise<FireOutcome> {
    const { runStates, apiKeys, workspaces, runs, sessions } = this.#deps;
    if (await runStates.findState(schedule.workspaceId, runId)) return { status: 'fired', error: null };
    const [key, workspace] = await Promise.all([
      apiKeys.findById(schedule.workspaceId, schedule.apiKeyId),
      workspaces.findById(schedule.workspaceId),
    ]);
    if (!workspace) return { status: 'failed', error: 'the workspace no longer exists' };
    if (
      !key ||
      key.revokedAt !== null ||
      (key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now())
    ) {
      return { status: 'failed', error: 'the API key that created the schedule is revoked or expired' };
    }
    if (!(await this.#withinRateLimit(workspace, key))) {
      return {
        status: 'failed',
        error: 'rate_limit_exceeded: the run_start limit of its API key was reached',
      };
    }
    const credential: RunCredential = {
      workspaceId: schedule.workspaceId,
      apiKeyId: key.id,
      agentAllowlist: key.agentIds,
    };
    const metadata = { ...schedule.metadata, scheduleId: schedule.id };
    if (schedule.sessionId !== null) {
      await sessions.message(
        credential,
        schedule.sessionId,
        { ...schedule.input, metadata, ifBusy: 'enqueue' },
        undefined,
        {
          runId,
        },
      );
    } else {
      await runs.create(
        credential,
        { agentId: schedule.agentId, ...schedule.input, metadata },
        undefined,
        undefined,
        {
          id: runId,
        },
      );
    }
    return { status: 'fired', error: null };
  }

  /** Counts the fire in its key's `run_start` bucket, as the HTTP rate limit counts a run creation. */
  async #withinRateLimit(workspace: Workspace, key: ApiKey): Promise<boolean> {
    const { rateCounters, logger } = this.#deps;
    try {
      const decision = await rateCounters.consume(
        `${workspace.id}:${key.id}:run_start`,
        rateLimitFor('run_start', workspace.rateLimits),
      );
      return decision.allowed;
    } catch (error) {
      logger.warn({ err: error }, 'rate-limit counters unavailable; scheduled run not metered');
      return true;
    }
  }
}
