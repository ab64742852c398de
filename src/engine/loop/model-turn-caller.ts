import { setTimeout as sleep } from 'node:timers/promises';
import type { ModelMessage } from 'ai';
import type { Logger } from 'pino';
import type { TokenUsage } from '../../domain/usage.ts';
import { ModelTurnError, type CompletedTurn, type ModelCall, type ModelPort } from '../ports.ts';
import type { RunEmitter } from '../log/run-emitter.ts';
import { ReplayedPrefix } from '../takeover/replayed-prefix.ts';
import type { ControlPipeline } from './control-pipeline.ts';
import { estimatedCutTurnUsage } from './cut-turn-usage.ts';
import { RunCancelled } from './abort-reasons.ts';
import { InterruptedModelCall } from './interrupted-model-call.ts';
import { ModelCallAbort } from './model-call-abort.ts';
import { retryDelayMs, type RetryPolicy } from './retry-policy.ts';
import type { EmitEvent } from './run-control.ts';
import type { UsageTally } from './usage-tally.ts';

export interface ModelTurnCallerDeps {
  models: ModelPort;
  retryPolicy: RetryPolicy;
  logger: Logger;
}

export interface TurnCallRun {
  emitter: RunEmitter;
  emit: EmitEvent;
  tally: UsageTally;
  pipeline: ControlPipeline;
  /** Aborted on cancel, shutdown or an event-log failure: no further call or retry starts. */
  abort: AbortSignal;
  /** Aborted on shutdown or an event-log failure only: stops the call in flight. */
  stop: AbortSignal;
  /** What a takeover's interrupted turn already streamed: handed to the first call only. */
  replayed: { text: string; thinking: string };
  /** Ends a turn that broke off with the text it streamed (its `assistant_message`). */
  endTurnWithPartialText(turn: number, text: string): void;
}

/** A turn's model call: completed, or ended mid-stream by a control (the loop goes on to the next turn). */
export type TurnCallResult =
  { kind: 'completed'; completed: CompletedTurn } | { kind: 'cut_by_control'; partialText: string };

/**
 * One turn's model call: deltas streamed as events, usage counted, retried on
 * rate limits, overload and server errors while no output was sent.
 */
export class ModelTurnCaller {
  readonly #deps: ModelTurnCallerDeps;
  readonly #run: TurnCallRun;

  constructor(deps: ModelTurnCallerDeps, run: TurnCallRun) {
    this.#deps = deps;
    this.#run = run;
  }

  /** The text a takeover's interrupted turn streamed, taken when no call will regenerate it (a cancel). */
  takeReplayedText(): string {
    const { text } = this.#run.replayed;
    this.#run.replayed = { text: '', thinking: '' };
    return text;
  }

  async call(request: ModelCall, turn: number): Promise<TurnCallResult> {
    const run = this.#run;
    // A takeover's interrupted turn: what the client already has of it. A retried call had no
    // output, so the next call skips the same prefix.
    const sentThinking = new ReplayedPrefix(run.replayed.thinking);
    const replayedText = this.takeReplayedText();
    const sentText = new ReplayedPrefix(replayedText);
    for (let retry = 0; ; retry++) {
      // The model's text in this attempt: the partial reply if the attempt breaks off.
      let streamedText = '';
      let thinkingChars = 0;
      const abort = new ModelCallAbort(run.stop, run.abort);
      const onThinking = this.#reasoningWatch(turn, abort, request.messages);
      try {
        const completed = await this.#deps.models.call(request, abort.signal, {
          onText: (text) => {
            abort.answered();
            streamedText += text;
            onThinking?.spanEnded();
            const unsent = sentText.unsent(text);
            if (unsent !== '') run.emitter.emit('assistant_delta', { text: unsent });
          },
          onThinking: (text) => {
            abort.answered();
            thinkingChars += text.length;
            onThinking?.thought(text);
            const unsent = sentThinking.unsent(text);
            if (unsent !== '') run.emitter.emit('thinking_delta', { text: unsent });
          },
        });
        run.tally.countCompleted(completed.usage, completed.text);
        return { kind: 'completed', completed };
      } catch (error) {
        if (!(error instanceof ModelTurnError)) {
          if (run.stop.aborted) throw error;
          // Abandoned on cancel before it answered, cut by a control, or broken off outside the
          // provider (its model thread stopped): the invocation still counts.
          const partialText = streamedText || replayedText;
          if (abort.cutByControl) {
            const streamed = { textChars: streamedText.length, thinkingChars };
            run.tally.countCut(estimatedCutTurnUsage(request, streamed));
            return { kind: 'cut_by_control', partialText };
          }
          run.tally.countFailed();
          // Cut off by a later session message: the turn ends with what the client has of it.
          const reason: unknown = abort.signal.reason;
          if (reason instanceof RunCancelled && reason.cutsTurn)
            run.endTurnWithPartialText(turn, partialText);
          if (abort.signal.aborted) throw error;
          // The text already streamed ends the turn, as when a provider stream fails.
          run.endTurnWithPartialText(turn, partialText);
          throw new InterruptedModelCall(partialText, error);
        }
        const delay = retryDelayMs(this.#deps.retryPolicy, error.failure, retry, error.emittedOutput);
        if (delay === undefined) {
          run.tally.countFailed();
          // A control may answer a refusal (an output schema the provider rejects): the call goes
          // again as it changed it, or the run ends with the control's own failure.
          const refusal = error.emittedOutput
            ? undefined
            : run.pipeline.onCallRefused({ turn, call: request, failure: error.failure });
          if (refusal && 'retryWith' in refusal) {
            request = refusal.retryWith;
            continue;
          }
          const failure = refusal?.failWith;
          if (error.partialText !== '' || replayedText === '') {
            run.endTurnWithPartialText(turn, error.partialText);
            throw failure ?? error;
          }
          // Failed before any output: the text the client has of this turn is what it streamed before.
          run.endTurnWithPartialText(turn, replayedText);
          throw failure ?? new ModelTurnError(error.failure, replayedText, true);
        }
        this.#deps.logger.info(
          { errorClass: error.failure.errorClass, retry: retry + 1, delayMs: delay },
          'retrying model call',
        );
        await sleep(delay, undefined, { signal: run.abort }).catch(() => {
          if (run.abort.aborted) throw run.abort.reason;
        });
      } finally {
        await onThinking?.settled();
        abort.dispose();
      }
    }
  }

  /**
   * Reasoning progress for the controls that watch it (none: no per-delta work). A review decides
   * while the stream goes on; the attempt ends only once its reviews have (`settled`), so a verdict
   * and its event never outlive the turn that prompted them.
   */
  #reasoningWatch(turn: number, abort: ModelCallAbort, conversation: readonly ModelMessage[]) {
    const { pipeline, emit, tally } = this.#run;
    if (!pipeline.watchesReasoning) return undefined;
    let thoughts = '';
    let spanStart = 0;
    const reviews: Promise<unknown>[] = [];
    const reportUsage = (usage: TokenUsage) => tally.countControlUsage(usage);
    return {
      thought: (text: string) => {
        if (thoughts === '') spanStart = Date.now();
        thoughts += text;
        const chars = thoughts.length;
        const ms = Date.now() - spanStart;
        const verdict = pipeline.onReasoning({ turn, chars, ms, emit, conversation, thoughts, reportUsage });
        if (verdict === 'abort') abort.cut();
        else if (verdict !== 'continue') {
          reviews.push(
            verdict.then(
              (later) => later === 'abort' && abort.cut(),
              () => {},
            ),
          );
        }
      },
      spanEnded: () => {
        thoughts = '';
      },
      settled: () => Promise.all(reviews),
    };
  }
}
