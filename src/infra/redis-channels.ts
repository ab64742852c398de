import { Redis } from 'ioredis';
import { redisCommand } from './unreachable-redis.ts';

type Listener = (message: string) => void;

/** Told when a channel's live delivery is lost (`false`: messages may be missed) and back (`true`). */
export type LivenessListener = (live: boolean) => void;

interface Subscription {
  listeners: Map<Listener, LivenessListener | undefined>;
  /** Resolves once the channel is live (its SUBSCRIBE acknowledged, again after a lost connection). */
  ready: Promise<void>;
  /** Every message published from now on arrives (false while the connection is down). */
  live: boolean;
  /** Resolves `ready` of a subscription waiting to be live again. */
  markLive: () => void;
}

/**
 * Reconnection attempts at most a second apart, however long Redis has been gone: a Redis that
 * comes back is found within a second (ioredis' default backs off to 2 s, BullMQ's to 20 s).
 */
export function redisReconnectDelay(attempt: number): number {
  return Math.min(100 * attempt, 1000);
}

/**
 * Redis pub/sub with one subscriber connection per process: a channel is
 * SUBSCRIBEd while at least one local listener wants it, so a replica only
 * receives the runs it is serving. Redis keeps per-connection order, so a
 * channel's messages arrive in publish order. While the connection is down,
 * messages are lost: listeners are told, and told again once every channel
 * is subscribed anew, so that they read what they missed from the log.
 */
export class RedisChannels {
  readonly #publisher: Redis;
  readonly #subscriber: Redis;
  readonly #channels = new Map<string, Subscription>();
  readonly #reconnected = new Set<() => void>();
  #connectedBefore = false;

  constructor(url: string) {
    // Commands fail at once while Redis is unreachable (nothing waits in an offline queue): a
    // publish is repaired from the log, a readiness check answers `unavailable`, rate limits count
    // in memory.
    this.#publisher = new Redis(url, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      retryStrategy: redisReconnectDelay,
    });
    this.#subscriber = new Redis(url, {
      maxRetriesPerRequest: null,
      // Channels are subscribed again by `#resubscribe`, which knows when they are live.
      autoResubscribe: false,
      retryStrategy: redisReconnectDelay,
    });
    this.#subscriber.on('message', (channel: string, message: string) => {
      const subscription = this.#channels.get(channel);
      if (!subscription) return;
      for (const listener of [...subscription.listeners.keys()]) listener(message);
    });
    this.#subscriber.on('close', () => this.#lost());
    this.#subscriber.on('ready', () => this.#resubscribe());
    this.#publisher.on('ready', () => {
      if (this.#connectedBefore) for (const handler of [...this.#reconnected]) handler();
      this.#connectedBefore = true;
    });
    // Errors surface on commands; a connection error event must not crash the process.
    this.#publisher.on('error', () => {});
    this.#subscriber.on('error', () => {});
  }

  /** The command connection, for stores that need a client (rate-limit counters). */
  get client(): Redis {
    return this.#publisher;
  }

  /** True while the command connection is up. */
  get connected(): boolean {
    return this.#publisher.status === 'ready';
  }

  /** Calls `handler` each time the connection comes back after being lost; returns its removal. */
  onReconnect(handler: () => void): () => void {
    this.#reconnected.add(handler);
    return () => this.#reconnected.delete(handler);
  }

  async publish(channel: string, message: string): Promise<void> {
    await redisCommand(this.#publisher.publish(channel, message));
  }

  /**
   * Returns the unsubscribe function; the subscription is live once `ready` resolves (for every
   * listener of the channel, also one added while the SUBSCRIBE is still on its way). While Redis is
   * unreachable `ready` waits for it to come back. After that, `liveness` hears of each loss and return.
   */
  listen(
    channel: string,
    listener: Listener,
    liveness?: LivenessListener,
  ): { ready: Promise<void>; stop: () => void } {
    let subscription = this.#channels.get(channel);
    if (!subscription) {
      const created: Subscription = {
        listeners: new Map(),
        ready: Promise.resolve(),
        live: false,
        markLive: () => undefined,
      };
      created.ready = this.#subscriber.subscribe(channel).then(() => {
        created.live = true;
      });
      // A subscription closed before it was acknowledged: whoever awaits `ready` hears of it.
      created.ready.catch(() => undefined);
      subscription = created;
      this.#channels.set(channel, subscription);
    }
    const current = subscription;
    // The same function may listen twice; each `stop` removes its own registration only once.
    const key: Listener = (message) => listener(message);
    current.listeners.set(key, liveness);
    const stop = () => {
      current.listeners.delete(key);
      if (current.listeners.size === 0 && this.#channels.get(channel) === current) {
        this.#channels.delete(channel);
        void this.#subscriber.unsubscribe(channel).catch(() => undefined);
      }
    };
    return { ready: current.ready, stop };
  }

  /** Throws at once while the connection is down (`StoreUnavailableError`). */
  async ping(): Promise<void> {
    await redisCommand(this.#publisher.ping());
  }

  async close(): Promise<void> {
    this.#reconnected.clear();
    this.#publisher.disconnect();
    this.#subscriber.disconnect();
  }

  #lost(): void {
    for (const subscription of this.#channels.values()) {
      if (!subscription.live) continue;
      subscription.live = false;
      // A listener added from now on is live only once the channel is subscribed again.
      subscription.ready = new Promise((resolve) => (subscription.markLive = resolve));
      for (const liveness of [...subscription.listeners.values()]) liveness?.(false);
    }
  }

  #resubscribe(): void {
    const channels = [...this.#channels.keys()];
    if (channels.length === 0) return;
    this.#subscriber.subscribe(...channels).then(
      () => {
        for (const channel of channels) {
          const subscription = this.#channels.get(channel);
          if (!subscription || subscription.live) continue;
          subscription.live = true;
          subscription.markLive();
          for (const liveness of [...subscription.listeners.values()]) liveness?.(true);
        }
      },
      // Lost again before the answer: the next `ready` subscribes again.
      () => undefined,
    );
  }
}
