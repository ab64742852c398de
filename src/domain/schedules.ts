import type { InputMessage } from './run-spec.ts';

/** A scheduled time more than this late when a process could first fire it is skipped (extensions §8). */
export const LATE_FIRE_LIMIT_MS = 60_000;

/** What each fire sends: the schedule's `prompt` or its `messages`. */
export type ScheduleInput = { prompt: string } | { messages: InputMessage[] };

export interface Schedule {
  id: string;
  workspaceId: string;
  /** The API key that created the schedule: its fires are its run starts (agent allowlist, rate limit). */
  apiKeyId: string;
  agentId: string;
  cron: string;
  timezone: string;
  input: ScheduleInput;
  sessionId: string | null;
  metadata: Record<string, string>;
  enabled: boolean;
  /** Null while disabled. */
  nextRunAt: string | null;
  lastRunAt: string | null;
  lastRunId: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * One scheduled time of a schedule, claimed once across every process: `claimed` while its run is
 * being created (under a lease), then `fired`, or `failed` (the run could not be created: rate limit,
 * revoked key, deleted agent…), or `skipped` (its firing process died and it was then too late).
 */
export type ScheduleFireStatus = 'claimed' | 'fired' | 'failed' | 'skipped';

export interface ScheduleFire {
  scheduleId: string;
  scheduledFor: string;
  /** Reserved at the claim, so a fire taken over after a crash creates the same run, never a second. */
  runId: string;
  status: ScheduleFireStatus;
  error: string | null;
  leaseUntil: string;
  createdAt: string;
}
