import type { ModelMessage } from 'ai';
import type { RetainedToolPair } from '../domain/session.ts';
import type { StoredCheckpoint } from '../storage/repositories/run-checkpoint-repository.ts';
import type { ResumedRound } from './client-tool-round.ts';
import type { CompletedTurn, ToolCallRequest } from './model-turn.ts';
import type { TokenUsage } from './token-usage.ts';

/** What a run needs to go on after a restart, taken when a model turn ends with tool calls. */
export interface RunCheckpointState {
  /** The conversation after the initial input: assistant turns and tool results. */
  messages: ModelMessage[];
  tokens: TokenUsage;
  turns: number;
  lastText: string | null;
  retained: RetainedToolPair[];
  pendingRound: { turn: number; toolCalls: ToolCallRequest[]; assistantMessage: Record<string, unknown> };
}

/** Where a worker that takes a run over resumes it: its checkpoint and what the log shows after it. */
export interface ResumePoint extends ResumedRound {
  /** Absent when the run was taken over before its first tool round. */
  checkpoint: StoredCheckpoint<RunCheckpointState> | undefined;
  /** Whether the pending round's `assistant_message` is already in the log. */
  assistantMessageSent: boolean;
  /** Text and thoughts of the interrupted turn that the client already received. */
  partialText: string;
  partialThinking: string;
}

/** `assistant_message` data for a completed turn. */
export function assistantMessageData(
  turn: number,
  completed: Pick<CompletedTurn, 'text' | 'finishReason' | 'toolCalls'>,
): Record<string, unknown> {
  return {
    text: completed.text,
    turn,
    finishReason: completed.finishReason,
    ...(completed.toolCalls.length > 0 && {
      toolCalls: completed.toolCalls.map((call) => ({ id: call.id, name: call.name, input: call.input })),
    }),
  };
}
