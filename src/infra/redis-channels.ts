import { Redis } from 'ioredis';

type Listener = (message: string) => void;

/**
 * Redis pub/sub with one subscriber connection per process: a channel is
 * SUBSCRIBEd while at least one local listener wants it, so a replica only
 * receives the runs it is serving. Redis keeps per-connection order, so a
 * channel's messages arrive in publish order.
 */
export class RedisChannels {
  readonly #publisher: Redis;
  readonly #subscriber: Redis;
  readonly #channels = new Map<string, { listeners: Set<Listener>; ready: Promise<void> }>();

  constructor(url: string) {
    this.#publisher = new Redis(url, { maxRetriesPerRequest: 3, lazyConnect: false });
    this.#subscriber = new Redis(url, { maxRetriesPerRequest: null });
    this.#subscriber.on('message', (channel: string, message: string) => {
      const subscription = this.#channels.get(channel);
      if (!subscription) return;
      for (const listener of [...subscription.listeners]) listener(message);
    });
    // Errors surface on commands; a connection error event must not crash the process.
    this.#publisher.on('error', () => {});
    this.#subscriber.on('error', () => {});
  }

  /** The command connection, for stores that need a client (rate-limit counters). */
  get client(): Redis {
    return this.#publisher;
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.#publisher.publish(channel, message);
  }

  /**
   * Returns the unsubscribe function; the subscription is live once `ready` resolves (for every
   * listener of the channel, also one added while the SUBSCRIBE is still on its way).
   */
  listen(channel: string, listener: Listener): { ready: Promise<void>; stop: () => void } {
    let subscription = this.#channels.get(channel);
    if (!subscription) {
      subscription = {
        listeners: new Set(),
        ready: this.#subscriber.subscribe(channel).then(() => undefined),
      };
      this.#channels.set(channel, subscription);
    }
    const current = subscription;
    current.listeners.add(listener);
    const stop = () => {
      current.listeners.delete(listener);
      if (current.listeners.size === 0 && this.#channels.get(channel) === current) {
        this.#channels.delete(channel);
        void this.#subscriber.unsubscribe(channel).catch(() => undefined);
      }
    };
    return { ready: current.ready, stop };
  }

  async ping(): Promise<void> {
    await this.#publisher.ping();
  }

  async close(): Promise<void> {
    this.#publisher.disconnect();
    this.#subscriber.disconnect();
  }
}
