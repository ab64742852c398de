import type { ModelMessage } from 'ai';
import type { AssistantMessageData } from '../../domain/run-events.ts';
import type { RetainedToolPair } from '../../domain/session-history.ts';
import type { ToolCallRequest } from '../ports.ts';
import type { ControlStates } from '../loop/control-pipeline.ts';
import type { TallyState } from '../loop/usage-tally.ts';
import type { PlannedCall } from '../tools/tool-round.ts';

/**
 * What a run needs to go on after a restart, taken when a model turn ends with
 * tool calls, before its `assistant_message` goes out: the conversation so far,
 * the usage, the controls' states and the round about to run, as planned.
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
  /** Absent in checkpoints stored before rounds were planned ahead: planned again on resume. */
  plan?: PlannedCall[];
  /** Host tools the controls offered on the turn. */
  offeredHostTools?: string[];
}

/** `assistant_message` data for a completed turn. */
export function assistantMessageData(
  turn: number,
  completed: { text: string; finishReason: string | null; toolCalls: readonly ToolCallRequest[] },
): AssistantMessageData {
  return {
    text: completed.text,
    turn,
    finishReason: completed.finishReason,
    ...(completed.toolCalls.length > 0 && {
      toolCalls: completed.toolCalls.map((call) => ({ id: call.id, name: call.name, input: call.input })),
    }),
  };
}
