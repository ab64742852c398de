import type { ModelMessage } from 'ai';
import type { Logger } from 'pino';
import type { Run } from '../../domain/run.ts';
import type { AssistantMessageData } from '../../domain/run-events.ts';
import type { RetainedToolPair } from '../../domain/session-history.ts';
import type { CheckpointStore } from '../ports.ts';
import type { RunEmitter } from '../log/run-emitter.ts';
import { assistantMessageData, type RunCheckpointState } from '../takeover/run-checkpoint.ts';
import type { LoopStart } from '../takeover/loop-start.ts';
import type { RunParked } from '../tools/tool-executor.ts';
import { scheduleRound, runRound, type RoundOutcome, type RoundSchedule } from '../tools/tool-round.ts';
import type { LoggedRound } from '../takeover/logged-round.ts';
import type { StoreUnavailableError } from '../../domain/errors.ts';
import { baseTerminalFields } from '../../domain/terminal-fields.ts';
import { RunCancelled, storeOutageOf } from './abort-reasons.ts';
import type { ControlPipeline } from './control-pipeline.ts';
import { isUnexpectedStop, terminalEventFor, type LoopOutcome } from './loop-outcome.ts';
import { ModelTurnCaller, type ModelTurnCallerDeps } from './model-turn-caller.ts';
import { turnRequest } from './model-request.ts';
import { roundEmitter, setUpRun, type RunSetup, type RunSetupDeps } from './run-setup.ts';
import { modelInfoOf, type TerminalEvent } from './terminal-events.ts';
import { withUniqueToolCallIds } from './tool-call-ids.ts';
import { UsageTally } from './usage-tally.ts';

export interface TurnLoopDeps extends ModelTurnCallerDeps, RunSetupDeps {
  checkpoints: CheckpointStore;
  logger: Logger;
}

/**
 * How a run's execution on this worker ends: with its terminal event, parked on a client tool, or
 * halted because its database or Redis does not answer (it is taken up again from its log).
 */
export type LoopEnd =
  { kind: 'terminal'; event: TerminalEvent } | RunParked | { kind: 'halted'; error: StoreUnavailableError };

export interface TurnLoopSignals {
  /** Aborted on cancel, shutdown or an event-log failure: no further model turn starts. */
  abort: AbortSignal;
  /**
   * Aborted on shutdown or an event-log failure only: stops the model call in flight and tool
   * waits. A cancelled run finishes its current turn and waits for its pending tool calls.
   */
  stop: AbortSignal;
}

/**
 * One run's turn loop, owned by the worker executing it: build the request,
 * call the model, hand each tool call to the executor of its kind, append the
 * results, repeat or finish; exactly one terminal event at the end. Run
 * controls shape it through the pipeline; the loop names none of them.
 */
export class TurnLoop {
  readonly #deps: TurnLoopDeps;
  readonly #run: Run;
  readonly #emitter: RunEmitter;
  readonly #signals: TurnLoopSignals;
  readonly #start: LoopStart;
  readonly #pipeline: ControlPipeline;
  readonly #tally: UsageTally;
  readonly #caller: ModelTurnCaller;
  #history: ModelMessage[];
  #retained: RetainedToolPair[];
  #setup: RunSetup | undefined;

  constructor(
    deps: TurnLoopDeps,
    run: Run,
    pipeline: ControlPipeline,
    emitter: RunEmitter,
    signals: TurnLoopSignals,
    start: LoopStart,
  ) {
    this.#deps = deps;
    this.#run = run;
    this.#emitter = emitter;
    this.#signals = signals;
    this.#start = start;
    this.#pipeline = pipeline;
    this.#pipeline.restore(start.controls);
    this.#tally = new UsageTally(modelInfoOf(run.spec.effective), start.tally);
    this.#history = [...start.history];
    this.#retained = [...start.retained];
    this.#caller = new ModelTurnCaller(deps, {
      emitter,
      emit: roundEmitter(emitter),
      tally: this.#tally,
      pipeline: this.#pipeline,
      abort: signals.abort,
      stop: signals.stop,
      replayed: start.replayed,
      endTurnWithPartialText: (turn, text) => this.#endTurnWithPartialText(turn, text),
    });
  }

  /** Retained local tool results of this run, for its session. */
  get retained(): readonly RetainedToolPair[] {
    return this.#retained;
  }

  /** Runs the loop until the run ends (the terminal event to write) or parks; never throws. */
  async execute(): Promise<LoopEnd> {
    const outcome = await this.#loop()
      .catch((error: unknown): LoopOutcome => ({ kind: 'stopped', error }))
      .finally(() => this.#setup?.close());
    if (outcome.kind === 'parked') return outcome;
    if (outcome.kind === 'stopped') {
      // The store failing is no end of the run: whatever it stopped, the log says where to go on.
      const outage = storeOutageOf(outcome.error) ?? storeOutageOf(this.#signals.stop.reason);
      if (outage) return { kind: 'halted', error: outage };
    }
    const cancelled = this.#signals.abort.reason instanceof RunCancelled;
    if (outcome.kind === 'stopped' && !cancelled && isUnexpectedStop(outcome.error)) {
      this.#deps.logger.error({ err: outcome.error }, 'run failed unexpectedly');
    }
    const event = terminalEventFor(outcome, this.#tally.tally, {
      cancelled,
      fields: this.#pipeline.terminalFields(baseTerminalFields(this.#run.spec)),
    });
    return { kind: 'terminal', event };
  }

  async #loop(): Promise<LoopOutcome | RunParked> {
    const start = this.#start;
    // A cancel that came while no worker held the run still lets the pending round take the answers
    // already given (pending calls are fulfilled before the final event), and a turn cut short ends
    // with what the client has of it; the loop stops after that.
    if (!(start.resumed && this.#signals.abort.reason instanceof RunCancelled)) this.#throwIfAborted();
    const setup = await setUpRun(this.#deps, this.#run, this.#pipeline, this.#signals.abort);
    this.#setup = setup;
    let turn = 0;
    const pending = start.pendingRound;
    if (pending) {
      // Taken over at its last tool round: the round's calls are not published again, and its
      // assistant_message is sent only if the log lacks it.
      if (pending.assistantMessageSent) this.#tally.noteAssistantMessage(pending.assistantMessage);
      else this.#sendAssistantMessage(pending.assistantMessage);
      const schedule = pending.schedule
        ? { turn: pending.turn, calls: pending.schedule }
        : scheduleRound(pending.turn, pending.toolCalls, setup.roundTools(pending.offeredHostTools ?? []));
      const outcome = await this.#round(setup, schedule, pending.offeredHostTools ?? [], pending.logged);
      if (outcome) return outcome;
      turn = pending.turn + 1;
    }

    for (; ; turn++) {
      if (this.#signals.abort.reason instanceof RunCancelled) {
        // A turn a takeover found cut short ends with what the client has of it, as a turn
        // answering when the cancel came would.
        this.#endTurnWithPartialText(turn, this.#caller.takeReplayedText());
      }
      this.#throwIfAborted();
      // A run taken over before its first round does not announce again what its log holds.
      const emit = roundEmitter(
        this.#emitter,
        pending ? undefined : start.announced && { announced: start.announced },
      );
      const adjustments = await this.#pipeline.beforeTurn({ turn, emit });
      if (adjustments.finishWith !== undefined) return { kind: 'completed', text: adjustments.finishWith };
      if (adjustments.messages) this.#history.push(...adjustments.messages);
      const request = turnRequest(setup.model, this.#history, adjustments, this.#pipeline);
      const result = await this.#caller.call(request.call, turn);
      if (result.kind === 'cut_by_control') {
        this.#endTurnWithPartialText(turn, result.partialText);
        continue;
      }
      const completed = withUniqueToolCallIds(result.completed, request.call.messages);
      const assistantMessage = assistantMessageData(turn, completed);
      if (this.#signals.abort.aborted) {
        // Cancelled during the turn: the runner stops between turns, so the turn ends as it came
        // and neither its tool calls nor another turn follow.
        this.#sendAssistantMessage(assistantMessage);
        this.#throwIfAborted();
      }
      if (
        completed.toolCalls.length > 0 &&
        request.toolsCallable &&
        completed.finishReason !== 'max_tokens'
      ) {
        const offered = adjustments.offerHostTools ?? [];
        const schedule = scheduleRound(turn, completed.toolCalls, setup.roundTools(offered));
        this.#history.push(...completed.responseMessages);
        // Taken before the assistant_message goes out, so a takeover knows whether to send it.
        await this.#checkpoint({
          messages: this.#history,
          ...this.#tally.state,
          retained: this.#retained,
          controls: this.#pipeline.snapshot(),
          pendingRound: {
            turn,
            toolCalls: completed.toolCalls,
            assistantMessage,
            schedule: schedule.calls,
            ...(offered.length > 0 && { offeredHostTools: offered }),
          },
        });
        this.#sendAssistantMessage(assistantMessage);
        const outcome = await this.#round(setup, schedule, offered);
        if (outcome) return outcome;
        continue;
      }
      // A final turn's assistant_message and the terminal event commit together (same loop turn).
      this.#sendAssistantMessage(assistantMessage);
      if (completed.finishReason === 'max_tokens') return { kind: 'truncated', text: completed.text };
      const { text, finishReason } = completed;
      const verdict = await this.#pipeline.beforeFinish({
        turn,
        text,
        finishReason,
        toolsCallable: request.toolsCallable,
        emit,
      });
      if (verdict === 'accept') return { kind: 'completed', text };
      this.#history.push(...completed.responseMessages, ...verdict.continueWith);
    }
  }

  /**
   * Runs a scheduled round and adds its results to the conversation; an outcome when the run ends or
   * parks there (a parked run resumes the round from its checkpoint and log).
   */
  async #round(
    setup: RunSetup,
    schedule: RoundSchedule,
    offered: readonly string[],
    logged?: LoggedRound,
  ): Promise<LoopOutcome | RunParked | undefined> {
    const emit = roundEmitter(this.#emitter, logged);
    const outcome: RoundOutcome = await runRound(schedule, {
      runId: this.#run.id,
      turn: schedule.turn,
      emitter: this.#emitter,
      emit,
      stop: this.#signals.stop,
      cancel: this.#signals.abort,
      tools: setup.roundTools(offered),
      executors: setup.executors,
      ...(logged && { logged }),
    });
    if (outcome.kind === 'parked') return outcome;
    if (outcome.kind === 'timed_out') {
      this.#throwIfAborted();
      return { kind: 'tool_timeout', call: outcome.call, timeoutMs: outcome.timeoutMs };
    }
    this.#history.push(outcome.message);
    this.#retained.push(...outcome.retained);
    await this.#pipeline.afterRound({
      turn: schedule.turn,
      calls: outcome.summary,
      emit,
      conversation: [...setup.model.input, ...this.#history],
      reportUsage: (usage) => this.#tally.countControlUsage(usage),
    });
    return undefined;
  }

  /** Stored once the turn's events are durable, so the checkpoint never runs ahead of the log. */
  async #checkpoint(state: RunCheckpointState): Promise<void> {
    await this.#emitter.durable();
    const { lastSeq, attempt } = this.#emitter;
    if (!(await this.#deps.checkpoints.save(this.#run.id, lastSeq, state, attempt))) {
      // A newer attempt owns the run: its checkpoint stands, and this worker stops.
      this.#emitter.fencedOutElsewhere();
      this.#throwIfAborted();
    }
  }

  /** A turn that broke off: the text it streamed, if any, is its assistant_message (no finish reason). */
  #endTurnWithPartialText(turn: number, text: string): void {
    if (text === '') return;
    this.#tally.noteText(text);
    this.#sendAssistantMessage(assistantMessageData(turn, { text, finishReason: null, toolCalls: [] }));
  }

  #sendAssistantMessage(data: AssistantMessageData): void {
    this.#tally.noteAssistantMessage(data);
    this.#emitter.emit('assistant_message', data);
  }

  #throwIfAborted(): void {
    if (this.#signals.abort.aborted) throw this.#signals.abort.reason;
  }
}
