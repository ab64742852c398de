import type { ModelMessage } from 'ai';
import type { RetainedToolPair } from '../../domain/session-history.ts';
import type { CheckpointStore, EventStore } from '../ports.ts';
import type { ControlStates } from '../loop/control-pipeline.ts';
import { EMPTY_TALLY, type TallyState } from '../loop/usage-tally.ts';
import { clientView, type PendingRound, type RunCheckpointState } from './run-checkpoint.ts';
import type { LoggedRound } from './logged-round.ts';
import { resumePointOf } from './resume-point.ts';

/** Where a run's turn loop starts: from scratch, or where its log and checkpoint leave it. */
export interface LoopStart {
  /** The conversation after the initial input. */
  history: ModelMessage[];
  tally: TallyState;
  retained: RetainedToolPair[];
  controls: ControlStates;
  /** The tool round a takeover found pending: it is finished before the next turn. */
  pendingRound?: PendingRound & { assistantMessageSent: boolean; logged: LoggedRound };
  /** What the client already has of a turn cut short: its regeneration does not send it again. */
  replayed: { text: string; thinking: string };
  /** Continues an earlier attempt: events already in the log after the checkpoint are not emitted again. */
  resumed: boolean;
  /** Taken over before its first tool round: the announcements the log already holds (a control's announcement before the first turn). */
  announced?: ReadonlySet<string>;
}

/** A run's first start: an empty log. */
export function freshStart(): LoopStart {
  return {
    history: [],
    tally: EMPTY_TALLY,
    retained: [],
    controls: {},
    replayed: { text: '', thinking: '' },
    resumed: false,
  };
}

/**
 * The one entry point of a takeover: where a run whose log already holds
 * events (`lastSeq` > 0: another worker, or this process before a stop,
 * started it) goes on. Undefined when its log cannot be continued.
 */
export async function loopStartFromLog(
  deps: { events: EventStore; checkpoints: CheckpointStore },
  runId: string,
): Promise<LoopStart | undefined> {
  const checkpoint = await deps.checkpoints.load<RunCheckpointState>(runId);
  const after = await deps.events.readAfter(runId, checkpoint?.seq ?? 0, 1_000_000);
  const point = resumePointOf(checkpoint, after);
  if (!point) return undefined;
  const replayed = { text: point.partialText, thinking: point.partialThinking };
  const state = point.checkpoint?.state;
  if (!state) return { ...freshStart(), replayed, resumed: true, announced: point.announced };
  return {
    history: state.messages,
    tally: { tokens: state.tokens, turns: state.turns, lastText: state.lastText },
    retained: state.retained,
    controls: state.controls ?? {},
    pendingRound: {
      ...state.pendingRound,
      // A checkpoint stored before host calls were left out of the message may still list them.
      assistantMessage: clientView(state.pendingRound.assistantMessage),
      assistantMessageSent: point.assistantMessageSent,
      logged: point,
    },
    replayed,
    resumed: true,
  };
}
