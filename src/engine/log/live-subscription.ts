import { setTimeout as delay } from 'node:timers/promises';
import type { RunEventBus } from '../ports.ts';
import type { SseSequencer } from './sse-sequencer.ts';

export interface LiveSubscriptionOptions {
  bus: RunEventBus;
  runId: string;
  sequencer: SseSequencer;
  /** How long the subscription may take before the log is followed without it. */
  subscribeWaitMs?: number;
  /** While the subscription is not live, the log is read this often. */
  pollMs?: number;
}

/** A live subscription answers in a millisecond or two; one that has not within a second waits for Redis. */
const DEFAULT_SUBSCRIBE_WAIT_MS = 1000;
const DEFAULT_POLL_MS = 1000;

/**
 * Feeds a run's live events to a sequencer, and keeps it going while the bus cannot deliver them
 * (Redis unreachable): replay starts once the subscription is live, or, if it is not within
 * `subscribeWaitMs`, at once, with the log read every `pollMs` until it is. A subscription that
 * loses live delivery later is followed the same way until it is back. Whenever it becomes live
 * the log is read once more: what was published before is there (events are durable before they
 * are published), what is published after arrives live, so nothing is missed or repeated.
 */
export class LiveSubscription {
  readonly #options: LiveSubscriptionOptions;
  #unsubscribe: (() => void) | undefined;
  #poll: NodeJS.Timeout | undefined;
  #replaying = false;
  #closed = false;

  constructor(options: LiveSubscriptionOptions) {
    this.#options = options;
  }

  /** Resolves once replay has started (live, or following the log until the subscription is). */
  async start(): Promise<void> {
    const { bus, runId, sequencer } = this.#options;
    const subscribing = bus.subscribe(
      runId,
      (event) => sequencer.liveEvent(event),
      (live) => (live ? this.#live() : this.#lost()),
    );
    const subscribed = subscribing.then(
      (unsubscribe) => {
        if (this.#closed) {
          unsubscribe();
          return;
        }
        this.#unsubscribe = unsubscribe;
        this.#live();
      },
      // The bus closed before the subscription was live (service shutdown): the log is followed until the stream ends.
      () => undefined,
    );
    const waited = new AbortController();
    await Promise.race([
      subscribed,
      delay(this.#options.subscribeWaitMs ?? DEFAULT_SUBSCRIBE_WAIT_MS, undefined, {
        signal: waited.signal,
      }).catch(() => undefined),
    ]);
    waited.abort();
    if (!this.#replaying && !this.#closed) {
      this.#replaying = true;
      sequencer.subscribed();
      this.#lost();
    }
  }

  close(): void {
    this.#closed = true;
    this.#stopPolling();
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  #live(): void {
    if (this.#closed) return;
    this.#stopPolling();
    if (this.#replaying) {
      this.#options.sequencer.logMayHaveMore();
    } else {
      this.#replaying = true;
      this.#options.sequencer.subscribed();
    }
  }

  #lost(): void {
    if (this.#closed || this.#poll) return;
    const { sequencer, pollMs = DEFAULT_POLL_MS } = this.#options;
    this.#poll = setInterval(() => sequencer.logMayHaveMore(), pollMs);
    this.#poll.unref();
  }

  #stopPolling(): void {
    clearInterval(this.#poll);
    this.#poll = undefined;
  }
}
