import type { RunOutcome } from '../../domain/run.ts';
import type { RunEventData, RunEventType } from '../../domain/run-events.ts';
import type { EventStore, PublishedEvent, RunEventBus, SessionRunEnd } from '../ports.ts';
import { sseFrame } from '../../domain/sse-frame.ts';

interface PendingBatch {
  runId: string;
  events: PublishedEvent[];
  outcome?: RunOutcome;
  session?: SessionRunEnd;
  attempt?: number;
}

/** The runs of a commit whose writer had lost the run to a newer attempt: their events were not written. */
export type FencedRuns = ReadonlySet<string>;

interface Generation {
  batches: Map<string, PendingBatch>;
  done: Promise<FencedRuns>;
  settle: (result: FencedRuns | Error) => void;
}

const NONE_FENCED: FencedRuns = new Set();

/**
 * Appends run events to the durable log, then publishes them. Events appended
 * during one event-loop turn are committed together in one transaction on the
 * next `setImmediate`, and published only after that commit, so no subscriber
 * ever sees an event that is not durable. Commits are strictly sequential, so
 * publication order is seq order. After a failed commit, a run's later events
 * are not written (they would stand behind a hole in its seq) until the run
 * recovers.
 */
export class EventLogWriter {
  readonly #store: EventStore;
  readonly #bus: RunEventBus;
  #open: Generation | undefined;
  #inFlight: Promise<FencedRuns> = Promise.resolve(NONE_FENCED);
  /** Runs with events a failed commit did not write. */
  readonly #broken = new Set<string>();

  constructor(store: EventStore, bus: RunEventBus) {
    this.#store = store;
    this.#bus = bus;
  }

  /**
   * Queues one event; `outcome` and `session` go with a terminal event and are written in the same
   * transaction; `attempt` fences the write. Returns the promise of its commit, which resolves with
   * the runs fenced out (callers on the hot path may ignore it and await `durable` later).
   */
  append<T extends RunEventType>(
    runId: string,
    seq: number,
    type: T,
    data: RunEventData[T],
    options: { outcome?: RunOutcome; session?: SessionRunEnd; attempt?: number } = {},
  ): Promise<FencedRuns> {
    const generation = this.#open ?? this.#startGeneration();
    let batch = generation.batches.get(runId);
    if (!batch) {
      batch = { runId, events: [] };
      generation.batches.set(runId, batch);
    }
    const dataJson = JSON.stringify(data);
    batch.events.push({ seq, type, dataJson, frame: sseFrame(seq, type, dataJson) });
    if (options.outcome) batch.outcome = options.outcome;
    if (options.session) batch.session = options.session;
    if (options.attempt !== undefined) batch.attempt = options.attempt;
    return generation.done;
  }

  /** Resolves once everything appended so far is durable and published. */
  durable(): Promise<FencedRuns> {
    return this.#open?.done ?? this.#inFlight;
  }

  /** True when a commit of the run failed: nothing it appends is written until `recover`. */
  isBroken(runId: string): boolean {
    return this.#broken.has(runId);
  }

  /**
   * Lets a run whose commit failed write again, once no commit holding its earlier events is
   * pending (those are dropped): the log then ends where it should be continued from. Call it
   * when the run appends nothing else meanwhile.
   */
  async recover(runId: string): Promise<void> {
    await this.durable().catch(() => undefined);
    this.#broken.delete(runId);
  }

  #startGeneration(): Generation {
    let settle!: Generation['settle'];
    const done = new Promise<FencedRuns>((resolve, reject) => {
      settle = (result) => (result instanceof Error ? reject(result) : resolve(result));
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

  async #commit(generation: Generation): Promise<FencedRuns> {
    const batches = [...generation.batches.values()].filter((batch) => !this.#broken.has(batch.runId));
    let fenced: FencedRuns;
    try {
      fenced = batches.length === 0 ? NONE_FENCED : await this.#store.append(batches);
    } catch (error) {
      for (const batch of batches) this.#broken.add(batch.runId);
      generation.settle(error instanceof Error ? error : new Error(String(error)));
      return NONE_FENCED;
    }
    for (const batch of batches) if (!fenced.has(batch.runId)) this.#bus.publish(batch.runId, batch.events);
    generation.settle(fenced);
    return fenced;
  }
}
