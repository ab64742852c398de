import type { ProviderFailure } from '../ports.ts';

const RETRYABLE_CLASSES = new Set(['rate_limit', 'overloaded', 'server']);

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 30_000 };

/**
 * The wait before retry number `retry` (0-based): exponential from `baseDelayMs`, capped at
 * `maxDelayMs`, with ±20% jitter so that many runs failing together do not retry together.
 */
export function backoffDelayMs(policy: RetryPolicy, retry: number): number {
  const backoff = policy.baseDelayMs * 2 ** retry;
  const jitter = 0.8 + Math.random() * 0.4;
  return Math.min(Math.round(backoff * jitter), policy.maxDelayMs);
}

/**
 * The wait before retry number `retry` (0-based) of a failed model call, or
 * undefined when the failure is not retried: only `rate_limit`, `overloaded`
 * and `server`, only while retries remain, and never once output reached the
 * client (a retry would repeat it). A provider's Retry-After wins over backoff.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  failure: ProviderFailure,
  retry: number,
  emittedOutput: boolean,
): number | undefined {
  if (emittedOutput || retry >= policy.maxRetries || !RETRYABLE_CLASSES.has(failure.errorClass))
    return undefined;
  if (failure.retryAfterMs !== undefined) return Math.min(failure.retryAfterMs, policy.maxDelayMs);
  return backoffDelayMs(policy, retry);
}
