import type { ToolCallRecord } from '../../domain/tool-call.ts';
import type { RunSignals, ToolCallStore } from '../ports.ts';

/** How often the stored state is re-read while waiting, in case a signal was missed. */
const POLL_MS = 1000;

export interface ToolResultWaiterDeps {
  toolCalls: ToolCallStore;
  signals: RunSignals;
}

/**
 * Waits until every call of a batch is answered, or the deadline passes.
 * The rows are the truth; `tool_result` signals only say "look again now", and
 * a periodic re-read covers a signal that never arrives. `onRead` sees every
 * read of the batch's rows (answers as they come in).
 */
export async function waitForToolResults(
  deps: ToolResultWaiterDeps,
  runId: string,
  toolUseIds: readonly string[],
  deadline: number,
  stop: AbortSignal,
  onRead: (records: ToolCallRecord[]) => void,
): Promise<ToolCallRecord[] | 'timeout'> {
  let wake: (() => void) | undefined;
  let signalled = false;
  const stopListening = await deps.signals.listen(runId, (signal) => {
    if (signal.kind !== 'tool_result' || !toolUseIds.includes(signal.toolUseId)) return;
    signalled = true;
    wake?.();
  });
  try {
    for (;;) {
      signalled = false;
      const records = await deps.toolCalls.find(runId, toolUseIds);
      onRead(records);
      if (records.length === toolUseIds.length && records.every((record) => record.status === 'answered')) {
        return records;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) return 'timeout';
      if (stop.aborted) throw stop.reason;
      if (signalled) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(finish, Math.min(remaining, POLL_MS));
        const onStop = () => finish();
        stop.addEventListener('abort', onStop, { once: true });
        function finish() {
          clearTimeout(timer);
          stop.removeEventListener('abort', onStop);
          wake = undefined;
          resolve();
        }
        wake = finish;
      });
    }
  } finally {
    stopListening();
  }
}
