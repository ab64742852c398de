/** How a run stream reconnects after a dropped connection. */
export interface ReconnectOptions {
  /** Attempts in a row that bring no new event before the stream gives up (default 6). */
  maxConsecutiveFailures?: number;
  /** Wait before the first retry of a failing attempt; doubles per failure (default 250 ms). */
  initialDelayMs?: number;
  /** Cap of the wait between attempts (default 5 s). */
  maxDelayMs?: number;
  /**
   * A connection that receives nothing (not even the server's 15-second heartbeat) for this long is
   * treated as dropped (default 45 s).
   */
  idleTimeoutMs?: number;
}

export type ReconnectPolicy = Required<ReconnectOptions>;

export function reconnectPolicy(options: ReconnectOptions = {}): ReconnectPolicy {
  return {
    maxConsecutiveFailures: options.maxConsecutiveFailures ?? 6,
    initialDelayMs: options.initialDelayMs ?? 250,
    maxDelayMs: options.maxDelayMs ?? 5_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 45_000,
  };
}

/**
 * The wait before the next attempt after `failures` attempts in a row without progress: none after a
 * connection that delivered events, then exponential with jitter (so many clients dropped at once by
 * a restarting server do not come back in step), at least `minimumMs` (a server's Retry-After).
 */
export function reconnectDelayMs(policy: ReconnectPolicy, failures: number, minimumMs = 0): number {
  if (failures === 0) return minimumMs;
  const exponential = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (failures - 1));
  return Math.max(minimumMs, Math.round(exponential * (0.5 + Math.random() / 2)));
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
