import { InvalidRequestError, NotFoundError } from '../../domain/errors.ts';
import { metadataLimitViolations } from '../../domain/metadata.ts';
import type { Schedule, ScheduleInput } from '../../domain/schedules.ts';
import type { AgentStore, ScheduleRunEntry, ScheduleStore, SessionStore } from '../ports.ts';
import { authorizeAgent, type RunCredential } from '../lifecycle/agent-access.ts';
import { buildRunSpec, type RunSpecSources } from '../lifecycle/run-spec-builder.ts';
import { cronTimes } from './cron-times.ts';
import { FIRE_LEASE_MS } from './schedule-firer.ts';

export interface ScheduleServiceDeps extends RunSpecSources {
  schedules: ScheduleStore;
  agents: AgentStore;
  sessions: Pick<SessionStore, 'findById'>;
}

/** A schedule as created: `timezone` defaults to UTC, `enabled` to true. */
export interface ScheduleRequest {
  agentId: string;
  cron: string;
  timezone?: string;
  input: ScheduleInput;
  sessionId?: string;
  metadata?: Record<string, string>;
  enabled?: boolean;
}

export interface ScheduleChange {
  cron?: string;
  timezone?: string;
  input?: ScheduleInput;
  metadata?: Record<string, string>;
  enabled?: boolean;
}

/** Placeholder of the same length as a schedule id, to check that metadata still fits with it. */
const SCHEDULE_ID_SAMPLE = `sch_${'0'.repeat(26)}`;
const DELETE_POLL_MS = 50;

/** Schedules of API keys (extensions §8): validation, the next time, deletion that waits for a fire in flight. */
export class ScheduleService {
  readonly #deps: ScheduleServiceDeps;
  constructor(deps: ScheduleServiceDeps) {
    this.#deps = deps;
  }

  /**
   * Validates as a run creation by the same key would (agent access, model, tools), and the session
   * when one is named; `apiKeyId` is the key whose run starts the fires are.
   */
  async create(
    credential: RunCredential & { apiKeyId: string },
    request: ScheduleRequest,
  ): Promise<Schedule> {
    const timezone = request.timezone ?? 'UTC';
    const times = cronTimes(request.cron, timezone);
    const metadata = request.metadata ?? {};
    checkMetadata(metadata);
    const agent = await authorizeAgent(this.#deps.agents, credential, request.agentId);
    if (request.sessionId !== undefined) {
      if (!(await this.#deps.sessions.findById(credential.workspaceId, request.sessionId))) {
        throw new InvalidRequestError(`sessionId: no session '${request.sessionId}' in this workspace`);
      }
    } else {
      await buildRunSpec(
        this.#deps,
        credential.workspaceId,
        { agentId: request.agentId, ...request.input },
        agent,
      );
    }
    const enabled = request.enabled ?? true;
    return this.#deps.schedules.create({
      workspaceId: credential.workspaceId,
      apiKeyId: credential.apiKeyId,
      agentId: request.agentId,
      cron: request.cron.trim().split(/\s+/).join(' '),
      timezone,
      input: request.input,
      sessionId: request.sessionId ?? null,
      metadata,
      enabled,
      nextRunAt: enabled ? (times.nextAfter(new Date())?.toISOString() ?? null) : null,
    });
  }

  /** A new cron, time zone or enabling counts the next time from now; disabling clears it. */
  async update(workspaceId: string, id: string, change: ScheduleChange): Promise<Schedule> {
    const current = await this.get(workspaceId, id);
    const cron = change.cron ?? current.cron;
    const timezone = change.timezone ?? current.timezone;
    const times = cronTimes(cron, timezone);
    if (change.metadata !== undefined) checkMetadata(change.metadata);
    const enabled = change.enabled ?? current.enabled;
    const retimed = change.cron !== undefined || change.timezone !== undefined || enabled !== current.enabled;
    const updated = await this.#deps.schedules.update(workspaceId, id, {
      ...(change.cron !== undefined && { cron: cron.trim().split(/\s+/).join(' ') }),
      ...(change.timezone !== undefined && { timezone }),
      ...(change.input !== undefined && { input: change.input }),
      ...(change.metadata !== undefined && { metadata: change.metadata }),
      ...(change.enabled !== undefined && { enabled }),
      ...(retimed && {
        nextRunAt: enabled ? (times.nextAfter(new Date())?.toISOString() ?? null) : null,
      }),
    });
    if (!updated) throw scheduleNotFound();
    return updated;
  }

  async get(workspaceId: string, id: string): Promise<Schedule> {
    const schedule = await this.#deps.schedules.find(workspaceId, id);
    if (!schedule) throw scheduleNotFound();
    return schedule;
  }

  list(workspaceId: string): Promise<Schedule[]> {
    return this.#deps.schedules.list(workspaceId);
  }

  /**
   * No time is claimed once the schedule is gone; a fire claimed just before is waited for (its run
   * exists before the answer), up to its lease: a fire whose process died is then dropped.
   */
  async delete(workspaceId: string, id: string): Promise<void> {
    const { schedules } = this.#deps;
    if (!(await schedules.delete(workspaceId, id))) throw scheduleNotFound();
    const deadline = Date.now() + FIRE_LEASE_MS;
    while (Date.now() < deadline && (await schedules.hasFireInFlight(id, new Date().toISOString()))) {
      await new Promise((resolve) => setTimeout(resolve, DELETE_POLL_MS));
    }
    await schedules.purgeFires(id);
  }

  async runs(
    workspaceId: string,
    id: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<ScheduleRunEntry[]> {
    const schedule = await this.get(workspaceId, id);
    return this.#deps.schedules.runs(schedule.id, limit, cursor);
  }
}

function checkMetadata(metadata: Record<string, string>): void {
  const [violation] = metadataLimitViolations({ ...metadata, scheduleId: SCHEDULE_ID_SAMPLE });
  if (violation !== undefined) {
    throw new InvalidRequestError(`metadata: with the scheduleId each run gets, it ${violation}`);
  }
}

function scheduleNotFound(): NotFoundError {
  return new NotFoundError('Schedule not found');
}
