import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { RateCounters, RateDecision } from '../engine/ports.ts';

/**
 * The limiter only counts: each workspace's own maximum is applied to the count, so that an operator
 * changing a limit keeps the current window's count instead of starting a new window.
 */
const COUNT_ONLY_POINTS = 2 ** 31 - 1;

/**
 * Fixed 60-second windows counted with rate-limiter-flexible: in memory for the
 * embedded service, in Redis for scale-out (so every replica counts the same window).
 * While Redis is unreachable, each replica counts in its own memory (the library's
 * insurance limiter, used at once when the connection is not ready and when a command
 * fails), so limits still apply and no request waits for Redis.
 */
export class FlexibleRateCounters implements RateCounters {
  readonly #limiter: RateLimiterAbstract;

  constructor(
    store: { kind: 'memory' } | { kind: 'redis'; client: Redis; prefix: string },
    windowSeconds: number,
  ) {
    const window = { points: COUNT_ONLY_POINTS, duration: windowSeconds };
    this.#limiter =
      store.kind === 'memory'
        ? new RateLimiterMemory({ ...window, keyPrefix: 'rl' })
        : new RateLimiterRedis({
            ...window,
            storeClient: store.client,
            keyPrefix: `${store.prefix}:rl`,
            rejectIfRedisNotReady: true,
            insuranceLimiter: new RateLimiterMemory({ ...window, keyPrefix: 'rl' }),
          });
  }

  async consume(key: string, limit: number): Promise<RateDecision> {
    let counted: RateLimiterRes;
    try {
      counted = await this.#limiter.consume(key);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) counted = rejection;
      else throw rejection;
    }
    const { consumedPoints, msBeforeNext } = counted;
    return {
      allowed: consumedPoints <= limit,
      remaining: Math.max(0, limit - consumedPoints),
      resetMs: msBeforeNext,
    };
  }
}
