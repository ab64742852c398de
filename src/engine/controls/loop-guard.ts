import type { ModelMessage } from 'ai';
import type { LoopDetectionThresholds } from '../../domain/run-controls.ts';
import type { LoopDetectedData } from '../../domain/run-events.ts';
import type { ToolCallRequest } from '../ports.ts';
import type { InterceptedResult, RunControl, ToolOutput, TurnAdjustments } from '../loop/run-control.ts';
import { batchSignature } from './call-signature.ts';

/** `loopDetection` when the spec omits it. */
export const LOOP_DETECTION_DEFAULTS: LoopDetectionThresholds = {
  consecutiveThreshold: 3,
  hardCutoffThreshold: 6,
};

/** The guard's state, plain JSON, kept with the run's checkpoint. */
export interface LoopGuardState {
  /** The signature of the last tool-calling turn, and how many turns in a row had it. */
  signature: string | null;
  count: number;
  /** The last turn whose batch was judged, and whether that batch is skipped. */
  judgedTurn: number | null;
  skipping: boolean;
  /** The `loop_detected` of the judged turn, until it goes out with the turn's first skipped call. */
  pendingEvent: LoopDetectedData | null;
  softReported: boolean;
  hardReported: boolean;
  /** The steering message the next turn starts with. */
  steer: { hardCutoff: boolean; count: number; tools: string[] } | null;
  /** Past the hard cutoff: every later turn runs with tools disabled. */
  finalizing: boolean;
}

/**
 * `loopDetection`: a turn whose tool calls are the same as the turns before
 * it (same tools, same arguments, in any order) is a loop. From
 * `consecutiveThreshold` identical turns in a row, the duplicate batch is not
 * run (each call gets a synthetic already-made-this-call result) and the next
 * turn starts with a steering message; at `hardCutoffThreshold` the next turn
 * runs with tools disabled, asked for the final answer. The spec allows two
 * `loop_detected` per run: the first soft nudge and the hard cutoff are
 * reported; later soft skips happen silently.
 *
 * Host tools (`isHostTool`: a plan update, the final-result tool) are left out
 * of the signature and never skipped: they are the controls' own protocol, and
 * skipping one would break its control. Calls naming no tool are counted (an
 * invented name repeated is a loop too), though the pipeline never sees them
 * to skip: they get the unknown-tool result anyway.
 *
 * The batch is judged on the first call the pipeline hands over, from the
 * turn's whole round; a round the guard never sees (every call intercepted by
 * an earlier control, or naming no tool) is judged after it ran, and then only
 * the event and the steering apply.
 */
export function loopGuard(
  thresholds: LoopDetectionThresholds,
  isHostTool: (name: string) => boolean,
): RunControl {
  let state = initialState();

  function judge(turn: number, round: readonly ToolCallRequest[]): void {
    if (state.judgedTurn === turn) return;
    state.judgedTurn = turn;
    state.skipping = false;
    state.pendingEvent = null;
    const counted = round.filter((call) => !isHostTool(call.name));
    if (counted.length === 0) return;
    const signature = batchSignature(counted);
    state.count = signature === state.signature ? state.count + 1 : 1;
    state.signature = signature;
    if (state.count < thresholds.consecutiveThreshold) return;

    const hardCutoff = state.count >= thresholds.hardCutoffThreshold;
    const tools = [...new Set(counted.map((call) => call.name))];
    state.skipping = true;
    state.steer = { hardCutoff, count: state.count, tools };
    if (hardCutoff) state.finalizing = true;
    if (hardCutoff ? state.hardReported : state.softReported) return;
    state.pendingEvent = { consecutiveCount: state.count, hardCutoff, tools };
    if (hardCutoff) state.hardReported = true;
    else state.softReported = true;
  }

  function takeEvent(): LoopDetectedData | null {
    const event = state.pendingEvent;
    state.pendingEvent = null;
    return event;
  }

  return {
    name: 'loop_guard',
    beforeTurn: (): TurnAdjustments | undefined => {
      const steer = state.steer;
      state.steer = null;
      const messages = steer ? [steeringMessage(steer)] : undefined;
      if (state.finalizing) return { disableTools: true, ...(messages && { messages }) };
      return messages && { messages };
    },
    beforeToolCall: ({ turn, call, round }): InterceptedResult | undefined => {
      judge(turn, round);
      if (!state.skipping || isHostTool(call.name)) return undefined;
      const event = takeEvent();
      return {
        output: alreadyMadeOutput(call.name),
        ...(event && { event: { type: 'loop_detected', data: event } }),
      };
    },
    afterRound: ({ turn, calls, emit }) => {
      judge(
        turn,
        calls.map((entry) => entry.call),
      );
      const event = takeEvent();
      if (event) emit({ type: 'loop_detected', data: event });
    },
    snapshot: (): LoopGuardState => structuredClone(state),
    restore: (saved) => {
      state = { ...initialState(), ...(saved as Partial<LoopGuardState>) };
    },
  };
}

function initialState(): LoopGuardState {
  return {
    signature: null,
    count: 0,
    judgedTurn: null,
    skipping: false,
    pendingEvent: null,
    softReported: false,
    hardReported: false,
    steer: null,
    finalizing: false,
  };
}

function alreadyMadeOutput(toolName: string): ToolOutput {
  return {
    type: 'error-text',
    value: `Not run: you already made this exact call (${toolName} with these arguments) in the previous turn and got its result there. Do not repeat it: use the results you have, change your approach, or give your final answer.`,
  };
}

function steeringMessage({ hardCutoff, count, tools }: NonNullable<LoopGuardState['steer']>): ModelMessage {
  const calls = `the same tool calls (${tools.join(', ')}) with the same arguments, ${count} turns in a row`;
  return {
    role: 'user',
    content: hardCutoff
      ? `You have repeated ${calls}. Tools are now disabled: give your final answer now, from the results you already have.`
      : `You are repeating ${calls}; repeating them gives no new results. Use the results you have, change your approach, or give your final answer.`,
  };
}
