import { EventType, type Event as AgUiEvent, type RunFinishedOutcome, type TokenUsage } from '@ag-ui/core';
import type { UsageTriple } from '../../../domain/run-events.ts';
import type { FollowedRunEvent } from '../../../engine/log/run-event-follower.ts';

/** Which AG-UI run a stream answers and which run of the service it follows. */
export interface TranslatedRun {
  threadId: string;
  /** The input's `runId`, echoed in `RUN_STARTED` and `RUN_FINISHED`. */
  inputRunId: string;
  /** The service's run. */
  runId: string;
  sessionId: string;
  /**
   * The frontend tool calls this input answered: everything the run logged up to their answers was
   * streamed by earlier inputs, so the stream begins after the last of them.
   */
  answered: readonly string[];
}

/** The `metadata` key prefix the service's own ids travel under. */
const META = 'agent-runs';

/**
 * Translates one run's event log, as the run-event follower reads it from the first event, into
 * the AG-UI events of one input's stream: text and thinking per model turn, server tool calls with
 * their results, and the end: `RUN_FINISHED` (success, with the frontend tool call the run now
 * waits for as `pendingToolCallIds`; or cancelled) or `RUN_ERROR`. Pure: the same log gives the
 * same events, so a run taken over by another worker after a crash streams on unchanged.
 */
export class RunEventTranslator {
  readonly #run: TranslatedRun;
  readonly #awaitingAnswers: Set<string>;
  #turn = 0;
  #textOpen: string | undefined;
  #reasoningOpen: string | undefined;
  /** The last text message of the current turn, which the turn's tool calls belong to. */
  #turnMessage: string | undefined;
  #turnHadText = false;
  #done = false;

  constructor(run: TranslatedRun) {
    this.#run = run;
    this.#awaitingAnswers = new Set(run.answered);
  }

  /** Whether the stream has ended (its last event given). */
  get done(): boolean {
    return this.#done;
  }

  started(): AgUiEvent {
    const { threadId, inputRunId, runId, sessionId } = this.#run;
    return {
      type: EventType.RUN_STARTED,
      threadId,
      runId: inputRunId,
      rawEvent: { runId, sessionId },
      metadata: { [`${META}/runId`]: runId, [`${META}/sessionId`]: sessionId },
    };
  }

  /** The AG-UI events one run event gives (none while the stream has not reached its start). */
  translate(event: FollowedRunEvent): AgUiEvent[] {
    if (this.#done) return [];
    if (this.#awaitingAnswers.size > 0) {
      this.#skip(event);
      return [];
    }
    const out: AgUiEvent[] = [];
    switch (event.type) {
      case 'thinking_delta':
        if (event.data.text === '') break;
        this.#closeText(out);
        if (this.#reasoningOpen === undefined) {
          const messageId = `${this.#run.runId}:reasoning-${this.#turn}`;
          this.#reasoningOpen = messageId;
          out.push({ type: EventType.REASONING_START, messageId });
          out.push({ type: EventType.REASONING_MESSAGE_START, messageId, role: 'reasoning' });
        }
        out.push({
          type: EventType.REASONING_MESSAGE_CONTENT,
          messageId: this.#reasoningOpen,
          delta: event.data.text,
        });
        break;
      case 'assistant_delta':
        if (event.data.text === '') break;
        this.#closeReasoning(out);
        this.#appendText(out, event.data.text);
        break;
      case 'assistant_message':
        this.#closeReasoning(out);
        // A turn whose text was not streamed (none was, or a takeover regenerated it) still shows it.
        if (!this.#turnHadText && event.data.text !== '') this.#appendText(out, event.data.text);
        this.#closeText(out);
        // The turn's tool calls follow its message; a turn without text has none for them to belong to.
        if (!this.#turnHadText) this.#turnMessage = undefined;
        this.#turnHadText = false;
        this.#turn++;
        break;
      case 'tool_call':
        this.#closeOpen(out);
        out.push(...this.#toolCall(event.data.toolUseId, event.data.name, event.data.input));
        break;
      case 'tool_result':
        out.push({
          type: EventType.TOOL_CALL_RESULT,
          messageId: `${event.data.toolUseId}:result`,
          toolCallId: event.data.toolUseId,
          content: 'result' in event.data ? event.data.result : event.data.summary,
          role: 'tool',
        });
        break;
      case 'local_tool_call':
        // A frontend tool call: the run waits for its answer, which comes with the thread's next input.
        this.#closeOpen(out);
        out.push(...this.#toolCall(event.data.toolUseId, event.data.name, event.data.args));
        out.push(this.#finished({ type: 'success', pendingToolCallIds: [event.data.toolUseId] }));
        break;
      case 'local_tool_result_in':
        break;
      case 'tool_files':
      case 'loop_detected':
      case 'tool_budget_exceeded':
      case 'supervisor':
      case 'task_plan':
        out.push({ type: EventType.CUSTOM, name: `${META}/${event.type}`, value: event.data });
        break;
      case 'result':
        this.#closeOpen(out);
        if (event.data.subtype === 'success') {
          out.push(this.#finished({ type: 'success' }, event.data.text, event.data));
        } else {
          out.push(
            this.#error(
              event.data.error ?? 'a frontend tool call was not answered in time',
              event.data.subtype,
              event.data,
            ),
          );
        }
        break;
      case 'error':
        this.#closeOpen(out);
        out.push(this.#error(event.data.error, event.data.code, event.data));
        break;
      case 'cancelled':
        this.#closeOpen(out);
        out.push(this.#finished({ type: 'cancelled' }, undefined, event.data));
        break;
    }
    return out;
  }

  /**
   * The end of a stream whose run could not be followed to its end (the service is stopping, or its
   * log could not be read): the run goes on, readable on the runs API.
   */
  left(): AgUiEvent[] {
    if (this.#done) return [];
    const out: AgUiEvent[] = [];
    this.#closeOpen(out);
    this.#done = true;
    out.push({
      type: EventType.RUN_ERROR,
      message: `the stream of run ${this.#run.runId} ended before the run did; the run goes on (read it on the runs API)`,
      code: 'unavailable',
      metadata: { [`${META}/runId`]: this.#run.runId },
    });
    return out;
  }

  /** Before the stream's start: keeps the turn count (message ids) and waits for the answers' echoes. */
  #skip(event: FollowedRunEvent): void {
    if (event.type === 'assistant_message') this.#turn++;
    if (event.type === 'local_tool_result_in') this.#awaitingAnswers.delete(event.data.toolUseId);
  }

  #toolCall(toolCallId: string, toolCallName: string, args: unknown): AgUiEvent[] {
    return [
      {
        type: EventType.TOOL_CALL_START,
        toolCallId,
        toolCallName,
        ...(this.#turnMessage !== undefined && { parentMessageId: this.#turnMessage }),
      },
      { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: JSON.stringify(args ?? {}) },
      { type: EventType.TOOL_CALL_END, toolCallId },
    ];
  }

  #finished(outcome: RunFinishedOutcome, result?: string, usage?: UsageTriple): AgUiEvent {
    this.#done = true;
    return {
      type: EventType.RUN_FINISHED,
      threadId: this.#run.threadId,
      runId: this.#run.inputRunId,
      outcome,
      ...(result !== undefined && { result }),
      ...(usage !== undefined && usageOf(usage)),
      metadata: { [`${META}/runId`]: this.#run.runId },
    };
  }

  #error(message: string, code: string, usage: UsageTriple): AgUiEvent {
    this.#done = true;
    return {
      type: EventType.RUN_ERROR,
      message,
      code,
      ...usageOf(usage),
      metadata: { [`${META}/runId`]: this.#run.runId },
    };
  }

  /** Text of the turn's message, opened by its first piece. */
  #appendText(out: AgUiEvent[], delta: string): void {
    let messageId = this.#textOpen;
    if (messageId === undefined) {
      messageId = `${this.#run.runId}:turn-${this.#turn}`;
      this.#textOpen = messageId;
      this.#turnMessage = messageId;
      this.#turnHadText = true;
      out.push({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' });
    }
    out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta });
  }

  #closeText(out: AgUiEvent[]): void {
    if (this.#textOpen === undefined) return;
    out.push({ type: EventType.TEXT_MESSAGE_END, messageId: this.#textOpen });
    this.#textOpen = undefined;
  }

  #closeReasoning(out: AgUiEvent[]): void {
    if (this.#reasoningOpen === undefined) return;
    const messageId = this.#reasoningOpen;
    out.push({ type: EventType.REASONING_MESSAGE_END, messageId });
    out.push({ type: EventType.REASONING_END, messageId });
    this.#reasoningOpen = undefined;
  }

  #closeOpen(out: AgUiEvent[]): void {
    this.#closeReasoning(out);
    this.#closeText(out);
  }
}

/** The run's usage as AG-UI counts it (input and output totals, their named parts): none without a model. */
function usageOf(triple: UsageTriple): { usage?: TokenUsage[] } {
  if (!triple.model?.provider) return {};
  const { tokens, model } = triple;
  return {
    usage: [
      {
        provider: model.provider,
        model: model.id,
        inputTokens: tokens.inputTokens,
        outputTokens: tokens.outputTokens,
        totalTokens: tokens.inputTokens + tokens.outputTokens,
        reasoningTokens: tokens.reasoningTokens,
        cachedInputTokens: tokens.cachedTokens,
      },
    ],
  };
}
