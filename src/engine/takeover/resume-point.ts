import {
  DELTA_STREAMS,
  hasRole,
  type RunEventType,
  type SerializedRunEvent,
} from '../../domain/run-events.ts';
import { decodeEventData } from '../../domain/stored-events.ts';
import type { StoredCheckpoint } from '../ports.ts';
import type { LoggedRound } from './logged-round.ts';
import type { RunCheckpointState } from './run-checkpoint.ts';

/** Where a worker that takes a run over resumes it: its checkpoint and what the log shows after it. */
export interface ResumePoint extends LoggedRound {
  /** Absent when the run was taken over before its first tool round. */
  checkpoint: StoredCheckpoint<RunCheckpointState> | undefined;
  /** Whether the pending round's `assistant_message` is already in the log. */
  assistantMessageSent: boolean;
  /** Text and thoughts of the interrupted turn that the client already received. */
  partialText: string;
  partialThinking: string;
}

/** The identity of an emitted event, to recognize the same announcement in the log. */
export function eventKey(type: RunEventType, dataJson: string): string {
  return `${type}\n${dataJson}`;
}

/**
 * Where a worker taking a run over continues it, from the log after the run's
 * last checkpoint (or from its start): the pending tool round's calls,
 * answers and announcements already sent, then the deltas of a model turn
 * that was cut short. Undefined when the log holds anything else there (it
 * cannot be continued).
 */
export function resumePointOf(
  checkpoint: StoredCheckpoint<RunCheckpointState> | undefined,
  after: readonly SerializedRunEvent[],
): ResumePoint | undefined {
  const published = new Set<string>();
  const echoed = new Set<string>();
  const announced = new Set<string>();
  let assistantMessageSent = false;
  let partialText = '';
  let partialThinking = '';
  let inTurn = false;
  for (const { type, dataJson, seq } of after) {
    if (hasRole(type, 'delta')) {
      inTurn = true;
      const { text } = decodeEventData(type, dataJson, seq);
      if (DELTA_STREAMS[type] === 'text') partialText += text;
      else partialThinking += text;
      continue;
    }
    // An announcement may come before the first checkpoint or in the middle of a turn.
    if (hasRole(type, 'announcement')) {
      announced.add(eventKey(type, dataJson));
      continue;
    }
    // Round events belong to the checkpoint's pending round, and come before the next turn's deltas.
    if (!checkpoint || inTurn) return undefined;
    if (hasRole(type, 'turn')) {
      assistantMessageSent = true;
    } else if (hasRole(type, 'tool_call')) {
      published.add(decodeEventData(type, dataJson, seq).toolUseId);
    } else if (hasRole(type, 'tool_answer')) {
      echoed.add(decodeEventData(type, dataJson, seq).toolUseId);
    } else if (hasRole(type, 'round_event')) {
      announced.add(eventKey(type, dataJson));
    } else {
      return undefined;
    }
  }
  return { checkpoint, published, echoed, announced, assistantMessageSent, partialText, partialThinking };
}
