import {
  answeredToolUseIdOf,
  localToolCallOf,
  TERMINAL_EVENT_TYPES,
  type LocalToolCall,
  type RunEventLike,
} from './local-tool-call.ts';
import { postToolAnswer } from './post-tool-answer.ts';
import { readPendingCalls, type PendingCallsReader } from './pending-calls.ts';
import { answerOfError, type ToolAnswer } from './tool-answer.ts';
import type { LocalToolContext } from './tool-bridge.ts';

/** Runs one call to its answer (never rejects: a failure is an `{ error }` answer). */
export interface CallExecutor {
  execute(call: LocalToolCall, context: LocalToolContext): Promise<ToolAnswer>;
  /** Read-only calls may run alongside others; the rest run one at a time, in stream order. */
  isReadOnly(call: LocalToolCall): boolean;
}

/**
 * How one call ended for this client: `posted` (the service took our answer), `answered_elsewhere`
 * (a `local_tool_result_in` or a 404 `unknown_tool_use` showed someone else answered it),
 * `run_ended` (the terminal event or a 409 `run_terminal` came first), `stopped` (this client
 * stopped before answering), `failed` (posting failed for good: see `error`).
 */
export type CallOutcome = 'posted' | 'answered_elsewhere' | 'run_ended' | 'stopped' | 'failed';

export interface CallReport {
  runId: string;
  call: LocalToolCall;
  outcome: CallOutcome;
  /** The answer the handler or bridge produced, when it ran. */
  answer?: ToolAnswer;
  error?: unknown;
}

export interface RunToolSessionOptions {
  /** Stops the session: running handlers are aborted, nothing more is posted. */
  signal?: AbortSignal;
  /**
   * The events come from the start of the run's log, which may hold calls another client (or this
   * one, before a restart) already answered: each call read is held until the run's snapshot lists
   * it among the calls still pending (`pendingToolCalls`), and answered only then; a call the
   * snapshot no longer lists was answered (or timed out) before this client came. Pass `false` when
   * this client just created the run (nobody else can have answered yet).
   */
  catchUp?: boolean;
  onCallSettled?: (report: CallReport) => void;
}

type CallStatus = 'held' | 'scheduled' | 'running' | 'settled';

interface CallState {
  call: LocalToolCall;
  status: CallStatus;
  controller: AbortController;
}

/**
 * The tool side of one run: fed the run's events in order, it answers each pending
 * `local_tool_call` exactly once from this client. A call counts as answered when the stream
 * echoes a `local_tool_result_in` for it or when our own post is taken.
 */
export class RunToolSession {
  readonly runId: string;
  readonly #client: PendingCallsReader;
  readonly #executor: CallExecutor;
  readonly #options: RunToolSessionOptions;
  readonly #calls = new Map<string, CallState>();
  readonly #answered = new Set<string>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #stop = new AbortController();
  #sequential: Promise<void> = Promise.resolve();
  readonly #checksPending: boolean;
  /** The pending-calls lookup in flight, and whether calls arrived since it started. */
  #pendingLookup: Promise<void> | undefined;
  #lookUpAgain = false;
  #runEnded = false;
  /** Resolved once the terminal event was handled or the session stopped. */
  readonly #streamEnded = Promise.withResolvers<void>();
  #unlinkSignal: () => void = () => {};

  constructor(
    client: PendingCallsReader,
    runId: string,
    executor: CallExecutor,
    options: RunToolSessionOptions,
  ) {
    this.runId = runId;
    this.#client = client;
    this.#executor = executor;
    this.#options = options;
    this.#checksPending = options.catchUp ?? true;
    this.#stop.signal.addEventListener(
      'abort',
      () => {
        this.#abortAll(this.#stop.signal.reason);
        this.#streamEnded.resolve();
      },
      { once: true },
    );
    const { signal } = options;
    if (signal?.aborted) this.#stop.abort(signal.reason);
    else if (signal) {
      const stop = () => this.#stop.abort(signal.reason);
      signal.addEventListener('abort', stop, { once: true });
      // One signal often serves many runs (a chat's whole life): let go of it once closed.
      this.#unlinkSignal = () => signal.removeEventListener('abort', stop);
    }
  }

  /** True once the run's terminal event was handled. */
  get ended(): boolean {
    return this.#runEnded;
  }

  /** Feeds the next event of the run's stream. */
  handle(event: RunEventLike): void {
    if (this.#runEnded || this.#stop.signal.aborted) return;
    const call = localToolCallOf(event);
    if (call !== undefined) this.#received(call);
    const answered = answeredToolUseIdOf(event);
    if (answered !== undefined) this.#answeredBySomeone(answered);
    if (TERMINAL_EVENT_TYPES.has(event.type)) this.#ended();
  }

  /** Resolves once every started call has settled (their posts included). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Stops the session (running handlers are aborted, held calls dropped) and waits for it to settle. */
  async close(): Promise<void> {
    this.#unlinkSignal();
    if (!this.#stop.signal.aborted) this.#stop.abort(new Error('the tool session was closed'));
    await this.settled();
  }

  #received(call: LocalToolCall): void {
    if (this.#calls.has(call.toolUseId)) return;
    const state: CallState = { call, status: 'held', controller: new AbortController() };
    this.#calls.set(call.toolUseId, state);
    if (this.#checksPending) this.#lookUpPending();
    else this.#schedule(state);
  }

  #answeredBySomeone(toolUseId: string): void {
    this.#answered.add(toolUseId);
    const state = this.#calls.get(toolUseId);
    if (state?.status === 'running')
      state.controller.abort(new Error('the call was answered by another client'));
  }

  #ended(): void {
    this.#runEnded = true;
    this.#abortAll(new Error('the run ended'));
    this.#streamEnded.resolve();
  }

  #abortAll(reason: unknown): void {
    for (const state of this.#calls.values()) {
      if (state.status === 'held') this.#settle(state, this.#heldOutcome(state));
      else if (state.status !== 'settled') state.controller.abort(reason);
    }
  }

  #heldOutcome(state: CallState, otherwise: CallOutcome = 'run_ended'): CallOutcome {
    if (this.#answered.has(state.call.toolUseId)) return 'answered_elsewhere';
    if (this.#stop.signal.aborted) return 'stopped';
    return this.#runEnded ? 'run_ended' : otherwise;
  }

  /** One snapshot read at a time decides every call held so far; calls read meanwhile wait for the next. */
  #lookUpPending(): void {
    if (this.#pendingLookup !== undefined) {
      this.#lookUpAgain = true;
      return;
    }
    const lookup = this.#decideHeld().finally(() => {
      this.#pendingLookup = undefined;
      if (this.#lookUpAgain) {
        this.#lookUpAgain = false;
        this.#lookUpPending();
      }
    });
    this.#pendingLookup = lookup;
    this.#inFlight.add(lookup);
    void lookup.finally(() => this.#inFlight.delete(lookup));
  }

  /** Schedules the held calls the service still waits for, in stream order; settles the others. */
  async #decideHeld(): Promise<void> {
    const held = () => [...this.#calls.values()].filter((state) => state.status === 'held');
    if (held().length === 0) return;
    let pending: Set<string> | undefined;
    try {
      pending = await readPendingCalls(this.#client, this.runId, this.#stop.signal);
    } catch (error) {
      for (const state of held()) this.#settle(state, this.#heldOutcome(state, 'failed'), { error });
      return;
    }
    for (const state of held().sort((a, b) => a.call.seq - b.call.seq)) {
      if (this.#answered.has(state.call.toolUseId)) this.#settle(state, 'answered_elsewhere');
      // An older server does not list pending calls: answer, its 404 tells an answered call apart.
      else if (pending === undefined || pending.has(state.call.toolUseId)) this.#schedule(state);
      // Not pending any more: answered before this client read it, or timed out (the run then ends).
      else this.#settle(state, this.#runEnded ? 'run_ended' : 'answered_elsewhere');
    }
  }

  #schedule(state: CallState): void {
    state.status = 'scheduled';
    let work: Promise<void>;
    if (this.#executor.isReadOnly(state.call)) {
      work = this.#run(state);
    } else {
      work = this.#sequential.then(() => this.#run(state));
      this.#sequential = work.catch(() => {});
    }
    this.#inFlight.add(work);
    void work.finally(() => this.#inFlight.delete(work));
  }

  async #run(state: CallState): Promise<void> {
    const { call, controller } = state;
    const skipped = this.#skipReason(state);
    if (skipped !== undefined) return this.#settle(state, skipped);
    state.status = 'running';
    const context: LocalToolContext = {
      toolUseId: call.toolUseId,
      runId: this.runId,
      signal: controller.signal,
      call,
    };
    const answer = await this.#executor
      .execute(call, context)
      .catch((error: unknown) => answerOfError(error));
    const after = this.#skipReason(state);
    if (after !== undefined) return this.#settle(state, after, { answer });
    let outcome: CallOutcome;
    let failure: unknown;
    try {
      // The call's signal also ends a retry's wait: when the call is answered, the run ends or we stop.
      outcome = await postToolAnswer(this.#client, this.runId, call.toolUseId, answer, {
        signal: controller.signal,
        isAnswered: () => this.#answered.has(call.toolUseId),
      });
    } catch (error) {
      outcome = 'failed';
      failure = error;
    }
    if (outcome === 'posted') this.#answered.add(call.toolUseId);
    if (outcome === 'run_ended') {
      // The run ended before our post: its stream, up to the end, tells whether someone answered first.
      await this.#streamEnded.promise;
      outcome = this.#skipReason(state) ?? outcome;
    }
    // A post given up because the call was answered, the run ended or we stopped is not a failure.
    if (outcome === 'failed') outcome = this.#skipReason(state) ?? outcome;
    this.#settle(state, outcome, { answer, ...(outcome === 'failed' && { error: failure }) });
  }

  /** Why a call is no longer ours to answer, if it is not. */
  #skipReason(state: CallState): CallOutcome | undefined {
    if (this.#answered.has(state.call.toolUseId)) return 'answered_elsewhere';
    if (this.#runEnded) return 'run_ended';
    if (this.#stop.signal.aborted) return 'stopped';
    return undefined;
  }

  #settle(
    state: CallState,
    outcome: CallOutcome,
    extra: { answer?: ToolAnswer; error?: unknown } = {},
  ): void {
    state.status = 'settled';
    const report: CallReport = { runId: this.runId, call: state.call, outcome };
    if (extra.answer !== undefined) report.answer = extra.answer;
    if (extra.error !== undefined) report.error = extra.error;
    try {
      this.#options.onCallSettled?.(report);
    } catch {
      // An observer's failure must not stop the calls queued behind this one.
    }
  }
}
