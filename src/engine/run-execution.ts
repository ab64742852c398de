import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { DomainError } from '../domain/errors.ts';
import type { Run } from '../domain/run.ts';
import type { RetainedToolPair, SessionItem } from '../domain/session.ts';
import type { RunSpec } from '../domain/run-spec.ts';
import type { ModelInfo } from '../domain/usage.ts';
import type { ModelCatalog } from '../providers/model-catalog.ts';
import { reasoningCallSettings } from '../providers/reasoning.ts';
import { RunCancelled, ServiceShutdown } from './abort-reasons.ts';
import { ModelCallAbort } from './model-call-abort.ts';
import { withUniqueToolCallIds } from './tool-call-ids.ts';
import { ReplayedPrefix } from './replayed-prefix.ts';
import { initialConversation } from './conversation.ts';
import { runClientToolRound, type ClientToolRoundDeps, type ResumedRound } from './client-tool-round.ts';
import { assistantMessageData, type ResumePoint, type RunCheckpointState } from './run-checkpoint.ts';
import { modelToolDefinitions, resolveRunTools, type RunTools } from '../tools/run-tools.ts';
import type { ModelMessage } from 'ai';
import type { RunCheckpointRepository } from '../storage/repositories/run-checkpoint-repository.ts';
import type { SessionRepository } from '../storage/repositories/session-repository.ts';
import {
  InterruptedModelCall,
  ModelTurnError,
  type CompletedTurn,
  type ToolCallRequest,
} from './model-turn.ts';
import type { ModelCall, ModelCaller } from './ports.ts';
import { retryDelayMs, type RetryPolicy } from './retry-policy.ts';
import type { RunEmitter } from './run-emitter.ts';
import {
  cancelledEvent,
  errorEvent,
  modelInfoOf,
  structuredOutputOf,
  resultEvent,
  type RunFailure,
  type TerminalEvent,
  type UsageTriple,
} from './terminal-events.ts';
import { addUsage, zeroUsage, type TokenUsage } from './token-usage.ts';

export interface RunExecutionDeps extends ClientToolRoundDeps {
  catalog: ModelCatalog;
  /** A session run's history, read by reference when the run starts. */
  sessionHistory: Pick<SessionRepository, 'history'>;
  models: ModelCaller;
  checkpoints: RunCheckpointRepository;
  retryPolicy: RetryPolicy;
  logger: Logger;
}

/** The safety cap on tool turns when the spec's `budgets.maxToolTurns` is not given. */
export const DEFAULT_MAX_TOOL_TURNS = 50;

export interface RunExecutionSignals {
  /** Aborted on cancel, shutdown or an event-log failure: no further model turn starts. */
  abort: AbortSignal;
  /**
   * Aborted on shutdown or an event-log failure only: stops the model call in flight and tool
   * waits. A cancelled run finishes its current turn and waits for its pending tool calls.
   */
  stop: AbortSignal;
}

/**
 * One run's turn loop, owned by the worker executing it: one model call per
 * turn, deltas streamed as events, exactly one terminal event at the end.
 */
export class RunExecution {
  readonly #deps: RunExecutionDeps;
  readonly #run: Run;
  readonly #spec: RunSpec;
  readonly #emitter: RunEmitter;
  readonly #signal: AbortSignal;
  readonly #stop: AbortSignal;
  #tokens: TokenUsage = zeroUsage();
  #turns = 0;
  readonly #model: ModelInfo;
  #lastText: string | null = null;
  #lastFinishReason: string | null = null;
  #retained: RetainedToolPair[] = [];

  readonly #resume: ResumePoint | undefined;
  readonly #replayed: { partialText: string; partialThinking: string };

  constructor(
    deps: RunExecutionDeps,
    run: Run,
    emitter: RunEmitter,
    signals: RunExecutionSignals,
    resume?: ResumePoint,
  ) {
    this.#deps = deps;
    this.#resume = resume;
    this.#replayed = {
      partialText: resume?.partialText ?? '',
      partialThinking: resume?.partialThinking ?? '',
    };
    this.#run = run;
    this.#spec = run.spec as unknown as RunSpec;
    this.#emitter = emitter;
    this.#signal = signals.abort;
    this.#stop = signals.stop;
    this.#model = modelInfoOf(this.#spec.effective);
  }

  /** Retained local tool results of this run, for its session. */
  get retained(): readonly RetainedToolPair[] {
    return this.#retained;
  }

  /** Runs the turn loop to its end and returns the terminal event to write (never throws). */
  async execute(): Promise<TerminalEvent> {
    return this.#loop().catch((error: unknown) => this.#terminalFor(error));
  }

  async #loop(): Promise<TerminalEvent> {
    const pending = this.#resume?.checkpoint?.state;
    // A cancel that came while no worker held the run still lets the pending round take the answers
    // already given (pending calls are fulfilled before the final event), and a turn cut short ends
    // with what the client has of it; the loop stops after that.
    if (!(this.#resume && this.#signal.reason instanceof RunCancelled)) this.#throwIfAborted();
    const { model: runModel, reasoningLevel } = this.#spec.effective;
    const tools = resolveRunTools(this.#spec.effective.tools);
    const toolDefinitions = modelToolDefinitions(tools);
    const resolved = await this.#deps.catalog.resolve(this.#run.workspaceId, runModel.ref);
    const reasoning = reasoningCallSettings(
      resolved.api,
      reasoningLevel ?? undefined,
      resolved.vendorModelId,
    );
    const conversation = initialConversation(this.#spec, await this.#sessionHistory());
    const request: ModelCall = {
      model: resolved,
      instructions: conversation.instructions,
      messages: conversation.messages,
      streamThinking: reasoning.exposesThinking && (reasoningLevel ?? 0) > 0,
      ...(reasoning.providerOptions && { providerOptions: reasoning.providerOptions }),
      ...(reasoning.reasoning && { reasoning: reasoning.reasoning }),
    };
    const maxToolTurns = this.#spec.budgets?.maxToolTurns ?? DEFAULT_MAX_TOOL_TURNS;
    let history: ModelMessage[] = [];
    let firstTurn = 0;

    if (this.#resume && pending) {
      // Taken over at its last tool round: same conversation and usage; the round's calls are not
      // published again, and its assistant_message is sent only if the log lacks it.
      ({
        tokens: this.#tokens,
        turns: this.#turns,
        lastText: this.#lastText,
        retained: this.#retained,
      } = pending);
      history = pending.messages;
      firstTurn = pending.pendingRound.turn + 1;
      if (this.#resume.assistantMessageSent)
        this.#noteAssistantMessage(pending.pendingRound.assistantMessage);
      else this.#sendAssistantMessage(pending.pendingRound.assistantMessage);
      const outcome = await this.#toolRound(tools, pending.pendingRound.toolCalls, this.#resume);
      if (outcome.kind === 'timed_out') return this.#toolTimeout(outcome.call);
      history = [...history, outcome.message];
      this.#retained = [...this.#retained, ...outcome.retained];
    }

    for (let turn = firstTurn; ; turn++) {
      if (this.#signal.reason instanceof RunCancelled) {
        // A turn a takeover found cut short ends with what the client has of it, as a turn
        // answering when the cancel came would.
        this.#endTurnWithPartialText(turn, this.#takeReplayed('text'));
      }
      this.#throwIfAborted();
      // Past the tool-turn cap the model gets a tools-disabled final turn instead of looping on.
      const toolsEnabled = toolDefinitions !== undefined && turn < maxToolTurns;
      const messages = [...conversation.messages, ...history];
      const completed = withUniqueToolCallIds(
        await this.#callModel(
          {
            ...request,
            messages,
            ...(toolDefinitions && { tools: toolDefinitions, toolChoice: toolsEnabled ? 'auto' : 'none' }),
          },
          turn,
        ),
        messages,
      );
      const assistantMessage = assistantMessageData(turn, completed);
      if (this.#signal.aborted) {
        // Cancelled during the turn: the runner stops between turns, so the turn ends as it came
        // and neither its tool calls nor another turn follow.
        this.#sendAssistantMessage(assistantMessage);
        this.#throwIfAborted();
      }
      if (completed.toolCalls.length > 0 && toolsEnabled && completed.finishReason !== 'max_tokens') {
        history = [...history, ...completed.responseMessages];
        // Taken before the assistant_message goes out, so a takeover knows whether to send it.
        await this.#checkpoint({
          messages: history,
          tokens: this.#tokens,
          turns: this.#turns,
          lastText: this.#lastText,
          retained: this.#retained,
          pendingRound: { turn, toolCalls: completed.toolCalls, assistantMessage },
        });
        this.#sendAssistantMessage(assistantMessage);
        const outcome = await this.#toolRound(tools, completed.toolCalls);
        if (outcome.kind === 'timed_out') return this.#toolTimeout(outcome.call);
        history = [...history, outcome.message];
        this.#retained = [...this.#retained, ...outcome.retained];
        continue;
      }
      // A final turn's assistant_message and the terminal event commit together (same loop turn).
      this.#sendAssistantMessage(assistantMessage);
      if (completed.finishReason === 'max_tokens') {
        return this.#failure({
          message: 'the model ran out of output tokens before finishing its reply',
          errorClass: 'truncation',
          code: 'truncation',
          finishReason: 'max_tokens',
          partialText: completed.text,
          retryable: false,
        });
      }
      return resultEvent(completed.text, this.#usage(), structuredOutputOf(this.#spec));
    }
  }

  /** The session's conversation before this run (legacy runs carry a copy in their spec). */
  async #sessionHistory(): Promise<readonly SessionItem[]> {
    const { sessionHistory, history } = this.#spec.effective;
    if (!sessionHistory) return history ?? [];
    return this.#deps.sessionHistory.history(sessionHistory.sessionId, sessionHistory.items);
  }

  /** What a takeover's interrupted turn already streamed; handed to the first regenerated turn only. */
  #takeReplayed(kind: 'text' | 'thinking'): string {
    if (!this.#resume) return '';
    const key = kind === 'text' ? 'partialText' : 'partialThinking';
    const replayed = this.#replayed[key];
    this.#replayed[key] = '';
    return replayed;
  }

  #toolRound(tools: RunTools, calls: ToolCallRequest[], resumed?: ResumedRound) {
    return runClientToolRound(
      this.#deps,
      {
        runId: this.#run.id,
        tools,
        emitter: this.#emitter,
        timeoutMs: this.#spec.effective.localToolTimeoutMs,
        stop: this.#stop,
        cancel: this.#signal,
        ...(resumed && { resumed }),
      },
      calls,
    );
  }

  #toolTimeout(call: { toolUseId: string; name: string }): TerminalEvent {
    this.#throwIfAborted();
    const { localToolTimeoutMs } = this.#spec.effective;
    const message = `local tool ${call.name} (${call.toolUseId}) got no result within ${localToolTimeoutMs} ms`;
    return resultEvent(
      this.#lastText ?? '',
      this.#usage(),
      structuredOutputOf(this.#spec),
      'error_local_tool_timeout',
      message,
    );
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

  /** One turn's model call, retried on rate limits, overload and server errors while no output was sent. */
  async #callModel(request: ModelCall, turn: number): Promise<CompletedTurn> {
    // A takeover's interrupted turn: what the client already has of it. A retried call had no
    // output, so the next call skips the same prefix.
    const replayedText = this.#takeReplayed('text');
    const sentText = new ReplayedPrefix(replayedText);
    const sentThinking = new ReplayedPrefix(this.#takeReplayed('thinking'));
    for (let retry = 0; ; retry++) {
      // The model's text in this attempt: the partial reply if the attempt breaks off.
      let streamedText = '';
      const abort = new ModelCallAbort(this.#stop, this.#signal);
      try {
        const completed = await this.#deps.models.call(request, abort.signal, {
          onText: (text) => {
            abort.answered();
            streamedText += text;
            const unsent = sentText.unsent(text);
            if (unsent !== '') this.#emitter.emit('assistant_delta', { text: unsent });
          },
          onThinking: (text) => {
            abort.answered();
            const unsent = sentThinking.unsent(text);
            if (unsent !== '') this.#emitter.emit('thinking_delta', { text: unsent });
          },
        });
        this.#turns++;
        this.#tokens = addUsage(this.#tokens, completed.usage);
        this.#lastText = completed.text;
        return completed;
      } catch (error) {
        if (!(error instanceof ModelTurnError)) {
          if (this.#stop.aborted) throw error;
          // Abandoned on cancel before it answered, or broken off outside the provider (its model
          // thread stopped): the invocation still counts.
          this.#turns++;
          if (abort.signal.aborted) throw error;
          // The text already streamed ends the turn, as when a provider stream fails.
          const partialText = streamedText || replayedText;
          this.#endTurnWithPartialText(turn, partialText);
          throw new InterruptedModelCall(partialText, error);
        }
        const delay = retryDelayMs(this.#deps.retryPolicy, error.failure, retry, error.emittedOutput);
        if (delay === undefined) {
          this.#turns++;
          if (error.partialText !== '' || replayedText === '') {
            this.#endTurnWithPartialText(turn, error.partialText);
            throw error;
          }
          // Failed before any output: the text the client has of this turn is what it streamed before.
          this.#endTurnWithPartialText(turn, replayedText);
          throw new ModelTurnError(error.failure, replayedText, true);
        }
        this.#deps.logger.info(
          { runId: this.#run.id, errorClass: error.failure.errorClass, retry: retry + 1, delayMs: delay },
          'retrying model call',
        );
        await sleep(delay, undefined, { signal: this.#signal }).catch(() => this.#throwIfAborted());
      } finally {
        abort.dispose();
      }
    }
  }

  /** A turn that broke off: the text it streamed, if any, is its assistant_message (no finish reason). */
  #endTurnWithPartialText(turn: number, text: string): void {
    if (text === '') return;
    this.#lastText = text;
    this.#sendAssistantMessage(assistantMessageData(turn, { text, finishReason: null, toolCalls: [] }));
  }

  #sendAssistantMessage(data: Record<string, unknown>): void {
    this.#noteAssistantMessage(data);
    this.#emitter.emit('assistant_message', data);
  }

  /** An `error` event's finishReason mirrors the last assistant_message. */
  #noteAssistantMessage(data: Record<string, unknown>): void {
    this.#lastFinishReason = typeof data.finishReason === 'string' ? data.finishReason : null;
  }

  #terminalFor(error: unknown): TerminalEvent {
    if (this.#signal.aborted && this.#signal.reason instanceof RunCancelled) {
      return cancelledEvent(this.#usage(), this.#lastText);
    }
    if (error instanceof ModelTurnError) {
      const { failure } = error;
      return this.#failure({
        message: failure.message,
        errorClass: failure.errorClass,
        code: failure.errorClass,
        finishReason: this.#lastFinishReason,
        ...(error.partialText !== '' && { partialText: error.partialText }),
        retryable: failure.retryable,
        ...(failure.apiStatus !== undefined && { apiStatus: failure.apiStatus }),
        ...(failure.apiCode !== undefined && { apiCode: failure.apiCode }),
      });
    }
    if (error instanceof DomainError && error.code === 'invalid_model') {
      return this.#failure({
        message: error.message,
        errorClass: 'invalid_request',
        code: 'invalid_spec',
        retryable: false,
      });
    }
    // Stopped by the service stopping: the executor hands the run over; nothing failed.
    if (!(error instanceof ServiceShutdown))
      this.#deps.logger.error({ runId: this.#run.id, err: error }, 'run failed unexpectedly');
    return this.#failure({
      message: 'the worker failed while running the agent',
      code: 'worker_error',
      finishReason: this.#lastFinishReason,
      ...(error instanceof InterruptedModelCall &&
        error.partialText !== '' && { partialText: error.partialText }),
      retryable: true,
    });
  }

  #failure(failure: RunFailure): TerminalEvent {
    return errorEvent(failure, this.#usage(), structuredOutputOf(this.#spec));
  }

  #usage(): UsageTriple {
    return { tokens: this.#tokens, turns: this.#turns, model: this.#model };
  }

  #throwIfAborted(): void {
    if (this.#signal.aborted) throw this.#signal.reason;
  }
}
