import { DomainError, InvalidRequestError, NotFoundError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { metadataLimitViolations } from '../../domain/metadata.ts';
import type { Run } from '../../domain/run.ts';
import type { InputMessage, RunRequest } from '../../domain/run-spec.ts';
import type {
  IfBusy,
  Session,
  SessionMessage,
  SessionMessageRequest,
  SessionSpec,
} from '../../domain/session.ts';
import type { TraceOrigin } from '../../domain/trace-context.ts';
import { withoutUndefined } from '../../domain/without-undefined.ts';
import type { AgentStore, SessionListQuery, SessionStore } from '../ports.ts';
import { authorizeAgent, type RunCredential } from './agent-access.ts';
import type { RunService } from './run-service.ts';
import { buildRunSpec, mergeTools, type RunSpecSources } from './run-spec-builder.ts';

export class SessionConflictError extends DomainError {
  constructor(code: 'session_busy' | 'session_ended', message: string) {
    super(code, message);
  }
}

export interface SessionServiceDeps extends RunSpecSources {
  sessions: SessionStore;
  agents: AgentStore;
  runs: RunService;
}

/** Sessions: defaults held for message runs, the conversation those runs extend, listing and replay. */
export class SessionService {
  readonly #deps: SessionServiceDeps;
  constructor(deps: SessionServiceDeps) {
    this.#deps = deps;
  }

  /**
   * Validates the spec as a run would (agent access, model, tools) and stores it as the session's
   * defaults, under `options.id` when the caller reserved one.
   */
  async create(
    credential: RunCredential,
    spec: SessionSpec,
    options: { id?: string } = {},
  ): Promise<Session> {
    const agent = await authorizeAgent(this.#deps.agents, credential, spec.agentId);
    await buildRunSpec(this.#deps, credential.workspaceId, spec, agent);
    const { metadata, ...defaults } = spec;
    return this.#deps.sessions.create({
      ...(options.id !== undefined && { id: options.id }),
      workspaceId: credential.workspaceId,
      apiKeyId: credential.apiKeyId,
      spec: defaults,
      metadata: metadata ?? {},
    });
  }

  /**
   * A message run: the session's defaults with this message's overrides (for
   * this run only; an override cannot unset a default), the session's
   * conversation replayed before the input. One run at a time per session: a
   * message while one has not ended does what its `ifBusy` says (`#whileBusy`). `caller`: the trace
   * context the message came with; `options.runId`: the id reserved for the run (an idempotent message's).
   */
  async message(
    credential: RunCredential,
    sessionId: string,
    message: SessionMessageRequest,
    caller?: TraceOrigin,
    options: { runId?: string } = {},
  ): Promise<Run> {
    const session = await this.get(credential.workspaceId, sessionId);
    if (session.status === 'ended') throw sessionEnded();
    const { metadata, tools, ifBusy = 'reject', ...overrides } = withoutUndefined(message);
    const request: RunRequest = {
      ...session.spec,
      ...overrides,
      tools: mergeTools(session.spec.tools ?? [], tools ?? []),
      metadata: { ...session.metadata, ...metadata },
    };
    assertRunnable(request);
    const [violation] = metadataLimitViolations(request.metadata ?? {});
    if (violation !== undefined) {
      throw new InvalidRequestError(
        `metadata: the session's metadata merged with this message's ${violation}`,
      );
    }
    const runId = options.runId ?? newId('run');
    if (!(await this.#deps.sessions.claimForRun(session.id, runId))) {
      const current = await this.get(credential.workspaceId, sessionId);
      if (current.status === 'ended') throw sessionEnded();
      if (ifBusy === 'reject') {
        throw new SessionConflictError(
          'session_busy',
          `run ${current.activeRunId ?? ''} is still in progress on this session: wait for its terminal event (or cancel it), or send the message with ifBusy enqueue, interrupt or rollback`,
        );
      }
      return this.#whileBusy(credential, session.id, request, runId, ifBusy, caller);
    }
    let run: Run;
    try {
      // Read after the claim: the previous run has released the session, so its turns are all in.
      const history = { sessionId: session.id, items: await this.#deps.sessions.historyLength(session.id) };
      run = await this.#deps.runs.create(
        credential,
        request,
        { sessionId: session.id, runId, history },
        caller,
      );
    } catch (error) {
      // The creation's own failure is the answer (a 503 while the database is away); a release that
      // fails too leaves a reservation without a run, which the next message takes over in a minute.
      await this.#deps.sessions.releaseRun(session.id, runId).catch(() => undefined);
      throw error;
    }
    await this.#cancelIfEnded(credential.workspaceId, session.id, run.id);
    return run;
  }

  /**
   * A message to a busy session with `enqueue`, `interrupt` or `rollback`: the run is stored held
   * (`queued`), waiting for the session's runs accepted before it to end, and reads the whole
   * history when it starts. `interrupt` and `rollback` also cancel the run in progress (marked with
   * what its end leaves in the history) and the runs queued before this one, so it starts next.
   */
  async #whileBusy(
    credential: RunCredential,
    sessionId: string,
    request: RunRequest,
    runId: string,
    ifBusy: Exclude<IfBusy, 'reject'>,
    caller: TraceOrigin | undefined,
  ): Promise<Run> {
    const { sessions, runs } = this.#deps;
    const run = await runs.create(
      credential,
      request,
      { sessionId, runId, history: { sessionId }, held: true },
      caller,
    );
    if (ifBusy !== 'enqueue') {
      const [holder, ...queued] = await sessions.preempt(sessionId, run.id, ifBusy);
      if (holder !== undefined) await runs.cancel(credential.workspaceId, holder, { cutTurn: true });
      for (const cancelled of queued) await runs.cancel(credential.workspaceId, cancelled);
    }
    // The session may have freed before the run was stored, with nobody left to hand it over.
    if ((await sessions.promoteHeldRun(sessionId)) !== undefined)
      await runs.admitWaiting(credential.workspaceId);
    await this.#cancelIfEnded(credential.workspaceId, sessionId, run.id);
    return run;
  }

  /** A DELETE that landed between the claim (or the hold) and the run's creation could not cancel it yet. */
  async #cancelIfEnded(workspaceId: string, sessionId: string, runId: string): Promise<void> {
    if ((await this.get(workspaceId, sessionId)).status === 'ended') {
      await this.#deps.runs.cancel(workspaceId, runId);
    }
  }

  async get(workspaceId: string, sessionId: string): Promise<Session> {
    const session = await this.#deps.sessions.findById(workspaceId, sessionId);
    if (!session) throw new NotFoundError('Session not found');
    return session;
  }

  list(workspaceId: string, query: SessionListQuery) {
    return this.#deps.sessions.list(workspaceId, query);
  }

  async replay(
    workspaceId: string,
    sessionId: string,
    last?: number,
  ): Promise<{ session: Session; messages: SessionMessage[] }> {
    const session = await this.get(workspaceId, sessionId);
    return { session, messages: await this.#deps.sessions.messages(session.id, last) };
  }

  /**
   * Ends the session and cancels its in-flight run and the runs queued behind it (they end
   * `cancelled` without executing); ending an ended session changes nothing.
   */
  async end(workspaceId: string, sessionId: string): Promise<Session> {
    const { sessions, runs } = this.#deps;
    const ended = await sessions.end(workspaceId, sessionId);
    if (!ended) throw new NotFoundError('Session not found');
    const held = await sessions.heldRuns(sessionId);
    for (const runId of [...(ended.activeRunId ? [ended.activeRunId] : []), ...held]) {
      await runs.cancel(workspaceId, runId).catch(() => undefined);
    }
    return this.get(workspaceId, sessionId);
  }
}

function sessionEnded(): SessionConflictError {
  return new SessionConflictError('session_ended', 'the session has ended; create a new session to continue');
}

function assertRunnable(request: RunRequest): void {
  const hasSystemMessage = (request.messages ?? []).some(
    (message: InputMessage) => message.role === 'system' && message.content.trim() !== '',
  );
  if (!request.agentId && !request.systemPrompt?.trim() && !hasSystemMessage) {
    throw new InvalidRequestError(
      'systemPrompt: the session has no agentId or systemPrompt, so the message needs a non-empty system message',
    );
  }
}
