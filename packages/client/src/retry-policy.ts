/**
 * When and how soon the client tries a failed call again, shaped like openai-node's: up to
 * `maxRetries` more attempts after a connection error, a timeout, 408, 429 or 5xx, waiting what the
 * server asks for (`retry-after-ms`, `Retry-After` in seconds or as an HTTP date) when that is under
 * a minute, else an exponential backoff from 0.5 s to 8 s with up to 25 % jitter.
 */

export const DEFAULT_MAX_RETRIES = 2;
/** Per attempt, for ordinary calls (a run's stream is governed by its reconnect policy instead). */
export const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** A server's wait longer than this is not taken at its word: the backoff applies instead. */
const MAX_SERVER_DELAY_MS = 60_000;

/**
 * Whether a status may pass on another try. 409 is not retried, unlike openai-node, where it means a
 * lock timeout: here every 409 is a state the same request meets again (`session_busy`,
 * `session_ended`, `run_terminal`, `conflict`).
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** The wait a response asks for, in ms; undefined when it names none (or an unusable one). */
export function serverDelayMs(headers: Headers, now: number = Date.now()): number | undefined {
  const milliseconds = headers.get('retry-after-ms');
  const seconds = headers.get('retry-after');
  let delay: number | undefined;
  if (milliseconds !== null && milliseconds.trim() !== '') delay = Number(milliseconds);
  else if (seconds !== null && seconds.trim() !== '') {
    delay = /^\s*\d+(\.\d+)?\s*$/.test(seconds) ? Number(seconds) * 1000 : Date.parse(seconds) - now;
  }
  if (delay === undefined || !Number.isFinite(delay)) return undefined;
  return delay >= 0 && delay < MAX_SERVER_DELAY_MS ? delay : undefined;
}

/** The wait before retry number `retry` (0 for the first), after a response's headers when there was one. */
export function retryDelayMs(retry: number, headers?: Headers): number {
  const asked = headers && serverDelayMs(headers);
  if (asked !== undefined) return asked;
  const backoff = Math.min(INITIAL_DELAY_MS * 2 ** retry, MAX_DELAY_MS);
  return backoff * (1 - Math.random() * 0.25);
}
