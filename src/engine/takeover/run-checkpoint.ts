import type { ModelMessage } from 'ai';
import { clientVisibleCalls } from '../../domain/host-tools.ts';
import type { AssistantMessageData } from '../../domain/run-events.ts';
import type { RetainedToolPair } from '../../domain/session-history.ts';
import type { ToolCallRequest } from '../ports.ts';
import type { ControlStates } from '../loop/control-pipeline.ts';
import type { TallyState } from '../loop/usage-tally.ts';
import type { ScheduledCall } from '../tools/tool-round.ts';

/**
 * What a run needs to go on after a restart, taken when a model turn ends with
 * tool calls, before its `assistant_message` goes out: the conversation so far,
 * the usage, the controls' states and the round about to run, as scheduled.
 */
export interface RunCheckpointState extends TallyState {
  /** The conversation after the initial input: assistant turns and tool results. */
  messages: ModelMessage[];
  retained: RetainedToolPair[];
  /** Absent in checkpoints stored before the control pipeline (no control kept state then). */
  controls?: ControlStates;
  pendingRound: PendingRound;
}

export interface PendingRound {
  turn: number;
  toolCalls: ToolCallRequest[];
  assistantMessage: AssistantMessageData;
  /**
   * The round's schedule (renamed in stored checkpoints by migration 0012). Absent in checkpoints
   * stored before rounds were scheduled ahead: scheduled again on resume.
   */
  schedule?: ScheduledCall[];
  /** Host tools the controls offered on the turn. */
  offeredHostTools?: string[];
}

/** `assistant_message` data for a completed turn: its text and the calls a client is shown. */
export function assistantMessageData(
  turn: number,
  completed: { text: string; finishReason: string | null; toolCalls: readonly ToolCallRequest[] },
): AssistantMessageData {
  return clientView({
    text: completed.text,
    turn,
    finishReason: completed.finishReason,
    toolCalls: completed.toolCalls.map((call) => ({ id: call.id, name: call.name, input: call.input })),
  });
}

/**
 * A turn's `assistant_message` as a client is shown it: host tool calls are internal (the model's
 * conversation keeps them), and a turn with no other call lists none.
 */
export function clientView(data: AssistantMessageData): AssistantMessageData {
  const { toolCalls, ...message } = data;
  const visible = clientVisibleCalls(toolCalls ?? []);
  return visible.length > 0 ? { ...message, toolCalls: visible } : message;
}
