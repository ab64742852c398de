import type { RunEvent, SerializedRunEvent } from '../../domain/run-events.ts';
import { decodeRunEvent } from '../../domain/stored-events.ts';
import type { EventStore, RunEventBus } from '../ports.ts';
import { LiveSubscription } from './live-subscription.ts';
import { SseSequencer, type SseTransport } from './sse-sequencer.ts';

export interface RunEventFollowerDeps {
  store: EventStore;
  bus: RunEventBus;
  /** While nothing arrives, the log is read this often (a live message lost on the bus still arrives). */
  heartbeatMs: number;
}

/** Queued events past which a follower's reader counts as behind. */
const FOLLOWER_QUEUE_BEHIND = 1000;

/** One event of a run as a follower reads it. */
export type FollowedRunEvent = RunEvent & { seq: number };

/**
 * A run's events in seq order, from the first after `afterSeq` to the terminal one, for a reader
 * inside the service (an SSE subscriber reads them with `RunEventStream`). The same sequencer decides
 * what comes: subscribe first, replay the log, then live events with gaps filled from the log, so
 * none is missed or repeated. Ends after the terminal event; an abort of `signal` ends it with the
 * signal's reason, a failed log read with that failure.
 */
export async function* followRunEvents(
  runId: string,
  afterSeq: number,
  deps: RunEventFollowerDeps,
  signal: AbortSignal,
): AsyncGenerator<FollowedRunEvent, void, undefined> {
  signal.throwIfAborted();
  const follower = new RunEventFollower(runId, afterSeq, deps);
  const abort = () => follower.fail(signal.reason);
  signal.addEventListener('abort', abort, { once: true });
  try {
    await follower.start();
    for (let event = await follower.next(); event !== undefined; event = await follower.next()) {
      yield { seq: event.seq, ...decodeRunEvent(event) };
    }
  } finally {
    signal.removeEventListener('abort', abort);
    follower.close();
  }
}

/** Carries out what the sequencer decides, into a queue the generator drains. */
class RunEventFollower implements SseTransport {
  readonly #runId: string;
  readonly #deps: RunEventFollowerDeps;
  readonly #sequencer: SseSequencer;
  readonly #queue: SerializedRunEvent[] = [];
  /** The sequencer waits for the queue to be drained before it reads the next replay page. */
  #tookPending = false;
  #ended = false;
  #failure: { error: unknown } | undefined;
  #wake: (() => void) | undefined;
  readonly #live: LiveSubscription;
  #heartbeat: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(runId: string, afterSeq: number, deps: RunEventFollowerDeps) {
    this.#runId = runId;
    this.#deps = deps;
    this.#sequencer = new SseSequencer(afterSeq, false, this);
    this.#live = new LiveSubscription({ bus: deps.bus, runId, sequencer: this.#sequencer });
  }

  /** Follows the log while the bus cannot deliver live events (see `LiveSubscription`). */
  async start(): Promise<void> {
    const sequencer = this.#sequencer;
    this.#heartbeat = setInterval(() => sequencer.heartbeat(), this.#deps.heartbeatMs);
    this.#heartbeat.unref();
    await this.#live.start();
  }

  /** The next event, or undefined once the terminal event has been taken. */
  async next(): Promise<SerializedRunEvent | undefined> {
    for (;;) {
      if (this.#failure) throw this.#failure.error;
      const event = this.#queue.shift();
      if (event !== undefined) {
        if (this.#queue.length === 0) this.#drained();
        return event;
      }
      if (this.#ended || this.#closed) return undefined;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  fail(error: unknown): void {
    this.#failure ??= { error };
    this.#stop();
    this.#notify();
  }

  close(): void {
    this.#stop();
    this.#notify();
  }

  // The SseTransport methods below are called by the follower's own sequencer only.

  write(_frame: string, event: SerializedRunEvent): void {
    this.#queue.push(event);
    this.#notify();
  }

  readAfter(afterSeq: number, limit: number): void {
    this.#deps.store
      .readAfter(this.#runId, afterSeq, limit)
      .then((events) => this.#sequencer.logRead(events))
      .catch((error: unknown) => this.fail(error));
  }

  whenTaken(): void {
    if (this.#queue.length === 0) this.#sequencer.clientTook();
    else this.#tookPending = true;
  }

  /** Its reader takes events one at a time from a queue in memory: past this many, it reads the log instead. */
  isBehind(): boolean {
    return this.#queue.length > FOLLOWER_QUEUE_BEHIND;
  }

  end(): void {
    this.#ended = true;
    this.#stop();
    this.#notify();
  }

  #drained(): void {
    if (!this.#tookPending) return;
    this.#tookPending = false;
    this.#sequencer.clientTook();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #stop(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#sequencer.close();
    this.#live.close();
    clearInterval(this.#heartbeat);
  }
}
