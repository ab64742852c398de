import type { Logger } from 'pino';
import { NotFoundError } from '../../domain/errors.ts';
import type { Run, RunState, RunSummary } from '../../domain/run.ts';
import type { RunRequest, SessionHistoryRef } from '../../domain/run-spec.ts';
import type { ClientToolResult } from '../../domain/tool-call.ts';
import type { ClientToolKind } from '../../domain/tool-ref.ts';
import { newRunTraceContext, type TraceOrigin } from '../../domain/trace-context.ts';
import type { AgentStore, RunListQuery, RunMetrics, RunSignals, RunStore, ToolCallStore } from '../ports.ts';
import type { RunTracing } from '../ports/tracing.ts';
import { authorizeAgent, type RunCredential } from './agent-access.ts';
import type { RunDispatcher } from './run-dispatcher.ts';
import { buildRunSpec, type RunSpecSources } from './run-spec-builder.ts';
import { acceptToolResult, type IntakeOutcome } from './tool-result-intake.ts';

export interface RunServiceDeps extends RunSpecSources {
  runs: RunStore;
  toolCalls: ToolCallStore;
  agents: AgentStore;
  dispatcher: RunDispatcher;
  signals: RunSignals;
  logger: Logger;
  /** Counts created runs (none counted when absent). */
  metrics?: RunMetrics;
  /** Where a run's trace starts: the span of the request creating it, when one is traced. */
  tracing?: Pick<RunTracing, 'creatingSpan'>;
}

/** A client tool call awaiting its one answer, as the run snapshot lists it. */
export interface PendingToolCall {
  toolUseId: string;
  name: string;
  kind: ClientToolKind;
}

/**
 * A message run of a session: its id is reserved on the session before the run exists, or it is
 * `held` (the session is busy): it waits for the session before it waits for a slot.
 */
export interface SessionRunContext {
  sessionId: string;
  runId: string;
  history: SessionHistoryRef;
  held?: boolean;
}

/** The API side of runs: create and admit, cancel, read. Execution happens in the worker. */
export class RunService {
  readonly #deps: RunServiceDeps;
  constructor(deps: RunServiceDeps) {
    this.#deps = deps;
  }

  /**
   * `caller`: the trace context the request came with (its `traceparent`); the run's trace continues
   * the active span where tracing is on (the request's own span, a child of the caller's), else it.
   * `options.id`: the id reserved for the run (an idempotent creation's); a session run's is its own.
   */
  async create(
    credential: RunCredential,
    request: RunRequest,
    session?: SessionRunContext,
    caller?: TraceOrigin,
    options: { id?: string } = {},
  ): Promise<Run> {
    const { runs, agents, dispatcher, logger } = this.#deps;
    const agent = await authorizeAgent(agents, credential, request.agentId);
    const spec = await buildRunSpec(this.#deps, credential.workspaceId, request, agent, session?.history);
    const input = {
      ...(options.id !== undefined && { id: options.id }),
      ...(session && { id: session.runId }),
      workspaceId: credential.workspaceId,
      agentId: agent?.id ?? null,
      sessionId: session?.sessionId ?? null,
      apiKeyId: credential.apiKeyId,
      spec,
      metadata: request.metadata ?? {},
      traceContext: newRunTraceContext(this.#deps.tracing?.creatingSpan() ?? caller),
    };
    // A held run is admitted once its session is handed to it.
    if (session?.held) {
      const run = await runs.create({ ...input, heldBySession: true });
      this.#deps.metrics?.runCreated(run.workspaceId);
      return run;
    }
    // Admitted in its insert if its workspace has a free slot, else it waits its turn. The run is
    // stored, so it is accepted whatever happens next: an admitted run the queue cannot take now
    // (Redis unreachable) is queued by the lost-run sweep as soon as it can be (embedded: at the
    // next start).
    const { run, admission } = await runs.createAdmitting(input);
    this.#deps.metrics?.runCreated(run.workspaceId);
    if (admission !== undefined && !(await dispatcher.queueAdmitted({ runId: run.id, admission }))) {
      logger.warn(
        { runId: run.id },
        'the run is admitted but not queued yet; the lost-run sweep will queue it',
      );
    }
    return run;
  }

  /**
   * Idempotent: records the request and signals the owner; an ended run is left as it is. The
   * stored request is what counts: an owner the signal misses finds it by its periodic check. A run
   * still waiting for a slot is admitted at once (it only ends); a parked run sees the cancel when its
   * pending calls are answered or time out (they are fulfilled before the final event).
   * `cutTurn`: a later session message interrupts the run; the turn it streams is cut off now.
   */
  async cancel(workspaceId: string, runId: string, options: { cutTurn?: boolean } = {}): Promise<RunState> {
    const run = await this.state(workspaceId, runId);
    if (run.endedAt !== null) return run;
    await this.#deps.runs.requestCancel(run.id);
    await this.#deps.signals
      .send(run.id, { kind: 'cancel', ...(options.cutTurn && { cut: true }) })
      .catch((error: unknown) =>
        this.#deps.logger.warn({ runId: run.id, err: error }, 'cancel signal not sent'),
      );
    await this.#deps.dispatcher
      .admitCancelled(run.id)
      .catch((error: unknown) =>
        this.#deps.logger.warn({ runId: run.id, err: error }, 'admitting the cancelled run failed'),
      );
    return run;
  }

  /** Admits the workspace's waiting runs that fit (a session was just handed to one of them). */
  async admitWaiting(workspaceId: string): Promise<void> {
    await this.#deps.dispatcher.admit(workspaceId).catch((error: unknown) => {
      this.#deps.logger.warn({ workspaceId, err: error }, 'admitting waiting runs failed; the sweep will');
    });
  }

  /** The client's answer to a pending local tool call (any replica may take it). */
  submitToolResult(
    workspaceId: string,
    runId: string,
    toolUseId: string,
    answer: ClientToolResult,
  ): Promise<IntakeOutcome> {
    return acceptToolResult(this.#deps, workspaceId, runId, toolUseId, answer);
  }

  /** Whether the run exists in the workspace, and where it stands (404 `Run not found` otherwise). */
  async state(workspaceId: string, runId: string): Promise<RunState> {
    const run = await this.#deps.runs.findState(workspaceId, runId);
    if (!run) throw new NotFoundError('Run not found');
    return run;
  }

  async get(workspaceId: string, runId: string): Promise<Run> {
    const run = await this.#deps.runs.findById(workspaceId, runId);
    if (!run) throw new NotFoundError('Run not found');
    return run;
  }

  /**
   * A page of the workspace's runs, newest first. A credential with an agent allowlist sees only
   * its agents' runs (an `agentId` outside it matches none).
   */
  async list(credential: RunCredential, query: Omit<RunListQuery, 'agentScope'>): Promise<RunSummary[]> {
    const allowlist = credential.agentAllowlist;
    if (allowlist.length === 0) return this.#deps.runs.list(credential.workspaceId, query);
    if (query.agentId !== undefined) {
      return allowlist.includes(query.agentId) ? this.#deps.runs.list(credential.workspaceId, query) : [];
    }
    return this.#deps.runs.list(credential.workspaceId, { ...query, agentScope: allowlist });
  }

  /** The run's client tool calls still awaiting an answer (none once the run ended). */
  async pendingToolCalls(run: RunState): Promise<PendingToolCall[]> {
    if (run.endedAt !== null) return [];
    const calls = await this.#deps.toolCalls.findPending(run.id);
    // Only client calls have rows, stored with their client kind.
    return calls.map(({ toolUseId, name, kind }) => ({ toolUseId, name, kind: kind as ClientToolKind }));
  }
}
