import type { RunOutcome } from '../domain/run.ts';
import type { EventBatch, EventStore, PublishedEvent, RunEventBus, SessionRunEnd } from './ports.ts';
import { sseFrame } from './sse-frame.ts';

interface PendingBatch {
  runId: string;
  events: PublishedEvent[];
  outcome?: RunOutcome;
  session?: SessionRunEnd;
}

interface Generation {
  batches: Map<string, PendingBatch>;
  done: Promise<void>;
  settle: (error?: unknown) => void;
}

/**
 * Appends run events to the durable log, then publishes them. Events appended
 * during one event-loop turn are committed together in one transaction on the
 * next `setImmediate`, and published only after that commit, so no subscriber
 * ever sees an event that is not durable. Commits are strictly sequential, so
 * publication order is seq order.
 */
export class EventLogWriter {
  readonly #store: EventStore;
  readonly #bus: RunEventBus;
  #open: Generation | undefined;
  #inFlight: Promise<void> = Promise.resolve();

  constructor(store: EventStore, bus: RunEventBus) {
    this.#store = store;
    this.#bus = bus;
  }

  /**
   * Queues one event; `outcome` goes with a terminal event and is written in the same transaction.
   * Returns the promise of its commit (callers on the hot path may ignore it and await `durable` later).
   */
  append(
    runId: string,
    seq: number,
    type: string,
    data: unknown,
    outcome?: RunOutcome,
    session?: SessionRunEnd,
  ): Promise<void> {
    const generation = this.#open ?? this.#startGeneration();
    let batch = generation.batches.get(runId);
    if (!batch) {
      batch = { runId, events: [] };
      generation.batches.set(runId, batch);
    }
    const dataJson = JSON.stringify(data);
    batch.events.push({ seq, type, dataJson, frame: sseFrame(seq, type, dataJson) });
    if (outcome) batch.outcome = outcome;
    if (session) batch.session = session;
    return generation.done;
  }

  /** Resolves once everything appended so far is durable and published. */
  durable(): Promise<void> {
    return this.#open?.done ?? this.#inFlight;
  }

  #startGeneration(): Generation {
    let settle!: Generation['settle'];
    const done = new Promise<void>((resolve, reject) => {
      settle = (error?: unknown) => (error === undefined ? resolve() : reject(error));
    });
    // A failed commit is reported to whoever awaits it; unobserved, it must not crash the process.
    done.catch(() => {});
    const generation: Generation = { batches: new Map(), done, settle };
    this.#open = generation;
    setImmediate(() => {
      this.#open = undefined;
      this.#inFlight = this.#inFlight.then(() => this.#commit(generation));
    });
    return generation;
  }

  async #commit(generation: Generation): Promise<void> {
    const batches: EventBatch[] = [...generation.batches.values()];
    try {
      await this.#store.append(batches);
    } catch (error) {
      generation.settle(error);
      return;
    }
    for (const batch of generation.batches.values()) this.#bus.publish(batch.runId, batch.events);
    generation.settle();
  }
}
