import type { EventStore } from './ports.ts';
import type { RunCheckpointRepository } from '../storage/repositories/run-checkpoint-repository.ts';
import type { ResumePoint, RunCheckpointState } from './run-checkpoint.ts';

/** Event types that may follow a run's last checkpoint in a log a takeover can continue. */
const ROUND_EVENTS = new Set(['assistant_message', 'local_tool_call', 'local_tool_result_in']);
const TURN_EVENTS = new Set(['assistant_delta', 'thinking_delta']);

/**
 * Where a worker taking a run over continues it, from the log after the run's
 * last checkpoint (or from its start): the pending tool round's calls and
 * answers already sent, then the deltas of a model turn that was cut short.
 * Undefined when the log holds anything else there (it cannot be continued).
 */
export async function readResumePoint(
  deps: { events: EventStore; checkpoints: RunCheckpointRepository },
  runId: string,
): Promise<ResumePoint | undefined> {
  const checkpoint = await deps.checkpoints.load<RunCheckpointState>(runId);
  const after = await deps.events.readAfter(runId, checkpoint?.seq ?? 0, 1_000_000);
  const published = new Set<string>();
  const echoed = new Set<string>();
  let assistantMessageSent = false;
  let partialText = '';
  let partialThinking = '';
  let inTurn = false;
  for (const event of after) {
    const data = JSON.parse(event.dataJson) as { toolUseId?: string; text?: string };
    if (ROUND_EVENTS.has(event.type)) {
      // Round events belong to the checkpoint's pending round, and come before the next turn's deltas.
      if (!checkpoint || inTurn) return undefined;
      if (event.type === 'assistant_message') assistantMessageSent = true;
      else if (event.type === 'local_tool_call') published.add(String(data.toolUseId));
      else echoed.add(String(data.toolUseId));
    } else if (TURN_EVENTS.has(event.type)) {
      inTurn = true;
      if (event.type === 'assistant_delta') partialText += data.text ?? '';
      else partialThinking += data.text ?? '';
    } else {
      return undefined;
    }
  }
  return { checkpoint, published, echoed, assistantMessageSent, partialText, partialThinking };
}
