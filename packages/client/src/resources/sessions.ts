import { followRun, type FollowRunOptions, type RunOutcome } from '../follow-run.ts';
import type { RequestOptions } from '../http-transport.ts';
import type { RunsResource } from './runs.ts';
import type {
  RunCreated,
  SessionCreated,
  SessionCreateRequest,
  SessionDetail,
  SessionEnded,
  SessionList,
  IfBusy,
  SessionMessageRequest,
  SessionReplay,
} from '../types.ts';
import { segment, type WorkspaceContext } from './workspace-context.ts';

export interface SessionListQuery {
  /** AND-combined `key: value` filters. */
  metadata?: Readonly<Record<string, string>>;
  status?: 'active' | 'ended';
  limit?: number;
  offset?: number;
}

export interface SessionEventsQuery {
  /** Every message (the default when `lastMessages` is absent). */
  full?: boolean;
  /** Only the last N messages. */
  lastMessages?: number;
}

/** How `send` sends a message and follows its run. */
export interface SessionSendOptions extends FollowRunOptions {
  /** What the message does if a run of the session has not ended (`reject` by default). */
  ifBusy?: IfBusy;
}

/** `{ws}/agent-sessions`: sessions, their history and their message runs. */
export class SessionsResource {
  readonly #context: WorkspaceContext;
  /** Follows the runs of messages. */
  readonly #runs: RunsResource;

  constructor(context: WorkspaceContext, runs: RunsResource) {
    this.#context = context;
    this.#runs = runs;
  }

  /**
   * `POST {ws}/agent-sessions`: the spec becomes the default of every message run. Sends a generated
   * `Idempotency-Key` (or `options.idempotencyKey`; `false`: none), so a retry answers the same session.
   */
  create(spec: SessionCreateRequest, options: RequestOptions = {}): Promise<SessionCreated> {
    return this.#context.transport.json({
      method: 'POST',
      path: this.#path(),
      body: spec,
      idempotentCreation: true,
      ...options,
    });
  }

  /** `GET {ws}/agent-sessions`: most recently used first. */
  list(query: SessionListQuery = {}, options: RequestOptions = {}): Promise<SessionList> {
    const metadata = Object.entries(query.metadata ?? {}).map(([key, value]) => `${key}:${value}`);
    return this.#context.transport.json({
      method: 'GET',
      path: this.#path(),
      query: { metadata, status: query.status, limit: query.limit, offset: query.offset },
      ...options,
    });
  }

  /** `GET {ws}/agent-sessions/{sessionId}`. */
  get(sessionId: string, options: RequestOptions = {}): Promise<SessionDetail> {
    return this.#context.transport.json({ method: 'GET', path: this.#path(sessionId), ...options });
  }

  /** `GET …/events`: the conversation's messages as replay frames. */
  events(
    sessionId: string,
    query: SessionEventsQuery = {},
    options: RequestOptions = {},
  ): Promise<SessionReplay> {
    return this.#context.transport.json({
      method: 'GET',
      path: this.#path(sessionId, 'events'),
      query: {
        full: query.full === undefined ? undefined : String(query.full),
        lastMessages: query.lastMessages,
      },
      ...options,
    });
  }

  /**
   * `POST …/messages`: starts a run on the session's history. While a run of the session has not
   * ended, `body.ifBusy` decides: `reject` (the default: `SessionBusyError`), `enqueue` (the run is
   * queued and starts after the earlier runs end), `interrupt` (the running run is cancelled, its
   * completed turns stay in the history) or `rollback` (it is cancelled and what it appended is
   * removed); see docs/sessions.md. Sends a generated `Idempotency-Key` (or `options.idempotencyKey`), so a retry answers the
   * same run; with `idempotencyKey: false`, none, and no retry.
   */
  message(sessionId: string, body: SessionMessageRequest, options: RequestOptions = {}): Promise<RunCreated> {
    return this.#context.transport.json({
      method: 'POST',
      path: this.#path(sessionId, 'messages'),
      body,
      startsRun: true,
      idempotentCreation: true,
      ...options,
    });
  }

  /**
   * Sends a message (a prompt or a full request) and follows its run to the terminal event (a queued
   * run's outcome comes once it ran). `options.ifBusy` is sent as the body's `ifBusy`.
   */
  async send(
    sessionId: string,
    message: string | SessionMessageRequest,
    options: SessionSendOptions = {},
  ): Promise<RunOutcome> {
    const { ifBusy, ...follow } = options;
    const request = typeof message === 'string' ? { prompt: message } : message;
    const body = ifBusy === undefined ? request : { ...request, ifBusy };
    const { runId } = await this.message(sessionId, body, follow.signal ? { signal: follow.signal } : {});
    return followRun({ runs: this.#runs }, runId, { ...follow, createdHere: true });
  }

  /** `DELETE {ws}/agent-sessions/{sessionId}`: the session ends; an in-flight run is cancelled. */
  end(sessionId: string, options: RequestOptions = {}): Promise<SessionEnded> {
    return this.#context.transport.json({ method: 'DELETE', path: this.#path(sessionId), ...options });
  }

  #path(sessionId?: string, action?: string): string {
    const base = `${this.#context.workspacePath}/agent-sessions`;
    if (sessionId === undefined) return base;
    return action === undefined ? `${base}/${segment(sessionId)}` : `${base}/${segment(sessionId)}/${action}`;
  }
}
