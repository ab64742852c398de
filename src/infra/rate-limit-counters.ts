import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { RateCounters, RateDecision } from '../engine/ports.ts';

/**
 * Fixed 60-second windows counted with rate-limiter-flexible: in memory for the
 * embedded service, in Redis for scale-out (so every replica counts the same
 * window). One limiter per distinct maximum.
 */
export class FlexibleRateCounters implements RateCounters {
  readonly #limiters = new Map<number, RateLimiterAbstract>();
  readonly #create: (points: number) => RateLimiterAbstract;

  constructor(
    store: { kind: 'memory' } | { kind: 'redis'; client: Redis; prefix: string },
    windowSeconds: number,
  ) {
    this.#create =
      store.kind === 'memory'
        ? (points) => new RateLimiterMemory({ points, duration: windowSeconds, keyPrefix: `rl${points}` })
        : (points) =>
            new RateLimiterRedis({
              storeClient: store.client,
              points,
              duration: windowSeconds,
              keyPrefix: `${store.prefix}:rl:${points}`,
            });
  }

  async consume(key: string, limit: number): Promise<RateDecision> {
    let limiter = this.#limiters.get(limit);
    if (!limiter) {
      limiter = this.#create(limit);
      this.#limiters.set(limit, limiter);
    }
    try {
      const result = await limiter.consume(key);
      return { allowed: true, remaining: result.remainingPoints, resetMs: result.msBeforeNext };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        return { allowed: false, remaining: 0, resetMs: rejection.msBeforeNext };
      }
      throw rejection;
    }
  }
}
