import { followRun, type FollowRunOptions, type RunOutcome } from '../follow-run.ts';
import type { RequestOptions } from '../http-transport.ts';
import { runEventStream, type RunStreamOptions } from '../run-stream.ts';
import type {
  Feedback,
  FeedbackRequest,
  RunCancelled,
  RunCreated,
  RunCreateRequest,
  RunEvent,
  RunList,
  RunSnapshot,
  RunStatus,
  ToolResultAccepted,
  ToolResultBody,
} from '../types.ts';
import { segment, type WorkspaceContext } from './workspace-context.ts';

/** Filters of `GET {ws}/agent-runs`, AND-combined. */
export interface RunListQuery {
  /** Runs in any of these statuses. */
  status?: RunStatus | readonly RunStatus[];
  agentId?: string;
  sessionId?: string;
  /** AND-combined `key: value` filters. */
  metadata?: Readonly<Record<string, string>>;
  /** Runs per page (default 50, at most 200). */
  limit?: number;
  /** The previous page's `nextCursor`. */
  cursor?: string;
}

/** `{ws}/agent-runs`: one-shot runs, their stream, tool results, cancellation and feedback. */
export class RunsResource {
  readonly #context: WorkspaceContext;

  constructor(context: WorkspaceContext) {
    this.#context = context;
  }

  /**
   * `POST {ws}/agent-runs`: starts a run (`202`); follow it with `stream` or use `run`. Not retried
   * unless `options.idempotencyKey` is given (a retry could start a second run).
   */
  create(body: RunCreateRequest, options: RequestOptions = {}): Promise<RunCreated> {
    return this.#context.transport.json({
      method: 'POST',
      path: this.#path(),
      body,
      startsRun: true,
      ...options,
    });
  }

  /**
   * `GET {ws}/agent-runs`: a page of the workspace's runs, newest first; pass `nextCursor` back as
   * `cursor` for the next page (null after the last).
   */
  list(query: RunListQuery = {}, options: RequestOptions = {}): Promise<RunList> {
    const metadata = Object.entries(query.metadata ?? {}).map(([key, value]) => `${key}:${value}`);
    const status =
      query.status === undefined ? [] : typeof query.status === 'string' ? [query.status] : [...query.status];
    return this.#context.transport.json({
      method: 'GET',
      path: this.#path(),
      query: {
        status,
        agentId: query.agentId,
        sessionId: query.sessionId,
        metadata,
        limit: query.limit,
        cursor: query.cursor,
      },
      ...options,
    });
  }

  /** `GET {ws}/agent-runs/{runId}`: the snapshot, without subscribing. */
  get(runId: string, options: RequestOptions = {}): Promise<RunSnapshot> {
    return this.#context.transport.json({ method: 'GET', path: this.#path(runId), ...options });
  }

  /** `POST …/cancel` (idempotent): the run ends with a `cancelled` event. */
  cancel(runId: string, options: RequestOptions = {}): Promise<RunCancelled> {
    return this.#context.transport.json({ method: 'POST', path: this.#path(runId, 'cancel'), ...options });
  }

  /**
   * `POST …/tool-results`: the one answer to a `local_tool_call`. Throws `UnknownToolUseError` for an
   * unknown or already answered call, `RunTerminalError` after the run ended.
   */
  submitToolResult(
    runId: string,
    body: ToolResultBody,
    options: RequestOptions = {},
  ): Promise<ToolResultAccepted> {
    return this.#context.transport.json({
      method: 'POST',
      path: this.#path(runId, 'tool-results'),
      body,
      ...options,
    });
  }

  /** `POST …/feedback`: thumbs up or down (one verdict per run, last write wins). */
  feedback(runId: string, body: FeedbackRequest, options: RequestOptions = {}): Promise<Feedback> {
    return this.#context.transport.json({
      method: 'POST',
      path: this.#path(runId, 'feedback'),
      body,
      ...options,
    });
  }

  /**
   * `GET …/stream`: the run's events, from its first (or after `lastSeq`) to its terminal event,
   * reconnecting transparently with `Last-Event-ID` when the connection drops.
   */
  stream(runId: string, options: RunStreamOptions = {}): AsyncIterable<RunEvent> {
    const target = {
      transport: this.#context.transport,
      runId,
      path: this.#path(runId, 'stream'),
      hasEnded: async (signal?: AbortSignal) =>
        (await this.get(runId, signal ? { signal } : {})).endedAt !== null,
    };
    return runEventStream(target, options);
  }

  /**
   * Follows an existing run to its terminal event, answering its local tool calls with
   * `options.tools` (after a restart: calls already answered in its log are left alone).
   */
  follow(runId: string, options: FollowRunOptions = {}): Promise<RunOutcome> {
    return followRun({ runs: this }, runId, options);
  }

  /** Creates a run and follows it to its terminal event. */
  async run(body: RunCreateRequest, options: FollowRunOptions = {}): Promise<RunOutcome> {
    const { runId } = await this.create(body, options.signal ? { signal: options.signal } : {});
    return followRun({ runs: this }, runId, { ...options, createdHere: true });
  }

  #path(runId?: string, action?: string): string {
    const base = `${this.#context.workspacePath}/agent-runs`;
    if (runId === undefined) return base;
    return action === undefined ? `${base}/${segment(runId)}` : `${base}/${segment(runId)}/${action}`;
  }
}
