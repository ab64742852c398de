import type { RequestOptions } from '../http-transport.ts';
import type { CreateSchedule, Schedule, ScheduleList, ScheduleRunList, UpdateSchedule } from '../types.ts';
import { segment, type WorkspaceContext } from './workspace-context.ts';

/**
 * `{ws}/schedules` (API keys only): stored agents run on a cron schedule, each scheduled time once,
 * and the runs each schedule created.
 */
export class SchedulesResource {
  readonly #context: WorkspaceContext;

  constructor(context: WorkspaceContext) {
    this.#context = context;
  }

  create(body: CreateSchedule, options: RequestOptions = {}): Promise<Schedule> {
    return this.#context.transport.json({ method: 'POST', path: this.#path(), body, ...options });
  }

  list(options: RequestOptions = {}): Promise<ScheduleList> {
    return this.#context.transport.json({ method: 'GET', path: this.#path(), ...options });
  }

  get(scheduleId: string, options: RequestOptions = {}): Promise<Schedule> {
    return this.#context.transport.json({ method: 'GET', path: this.#path(scheduleId), ...options });
  }

  update(scheduleId: string, body: UpdateSchedule, options: RequestOptions = {}): Promise<Schedule> {
    return this.#context.transport.json({ method: 'PATCH', path: this.#path(scheduleId), body, ...options });
  }

  /** No run is created for the schedule after this resolves. */
  async delete(scheduleId: string, options: RequestOptions = {}): Promise<void> {
    await this.#context.transport.json({ method: 'DELETE', path: this.#path(scheduleId), ...options });
  }

  /** The schedule's runs, newest first; pass `nextCursor` back as `cursor` for the next page. */
  runs(
    scheduleId: string,
    query: { limit?: number; cursor?: string } = {},
    options: RequestOptions = {},
  ): Promise<ScheduleRunList> {
    return this.#context.transport.json({
      method: 'GET',
      path: `${this.#path(scheduleId)}/runs`,
      query: { limit: query.limit, cursor: query.cursor },
      ...options,
    });
  }

  #path(scheduleId?: string): string {
    const base = `${this.#context.workspacePath}/schedules`;
    return scheduleId === undefined ? base : `${base}/${segment(scheduleId)}`;
  }
}
