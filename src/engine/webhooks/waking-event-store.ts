import type { EventBatch, EventStore } from '../ports.ts';

/**
 * The event store, telling `onOutcomes` after a commit that ended runs: their webhook deliveries
 * were written with them, and this process's deliverer can send them now rather than at its next look.
 */
export function wakingEventStore(store: EventStore, onOutcomes: () => void): EventStore {
  return {
    append: async (batches: readonly EventBatch[]) => {
      const fenced = await store.append(batches);
      if (batches.some((batch) => batch.outcome !== undefined && !fenced.has(batch.runId))) onOutcomes();
      return fenced;
    },
    readAfter: (runId, afterSeq, limit) => store.readAfter(runId, afterSeq, limit),
    lastSeq: (runId) => store.lastSeq(runId),
  };
}
