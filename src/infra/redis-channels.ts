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
  readonly #listeners = new Map<string, Set<Listener>>();

  constructor(url: string) {
    this.#publisher = new Redis(url, { maxRetriesPerRequest: 3, lazyConnect: false });
    this.#subscriber = new Redis(url, { maxRetriesPerRequest: null });
    this.#subscriber.on('message', (channel: string, message: string) => {
      const set = this.#listeners.get(channel);
      if (!set) return;
      for (const listener of [...set]) listener(message);
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

  /** Returns the unsubscribe function; the subscription is live once `ready` resolves. */
  listen(channel: string, listener: Listener): { ready: Promise<void>; stop: () => void } {
    let set = this.#listeners.get(channel);
    let ready: Promise<void> = Promise.resolve();
    if (!set) {
      set = new Set();
      this.#listeners.set(channel, set);
      ready = this.#subscriber.subscribe(channel).then(() => undefined);
    }
    set.add(listener);
    const stop = () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(channel) === set) {
        this.#listeners.delete(channel);
        void this.#subscriber.unsubscribe(channel).catch(() => undefined);
      }
    };
    return { ready, stop };
  }

  async ping(): Promise<void> {
    await this.#publisher.ping();
  }

  async close(): Promise<void> {
    this.#publisher.disconnect();
    this.#subscriber.disconnect();
  }
}
