import { AgentRunsError, RateLimitError } from '../errors.ts';

const FIRST_BACKOFF_MS = 200;
const MAX_BACKOFF_MS = 5_000;
const MAX_RETRY_AFTER_MS = 30_000;

/** A failure a second try may pass: no response at all, a 429 or a 5xx. */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof AgentRunsError)) return !isAbort(error); // fetch failed: no response
  return error.status === 0 || error.status === 429 || error.status >= 500;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/** How long to wait before try `attempt + 1`: the 429's Retry-After, else doubling from 200 ms. */
export function backoffMs(attempt: number, error: unknown): number {
  if (error instanceof RateLimitError && error.retryAfterSeconds !== undefined) {
    return Math.min(error.retryAfterSeconds * 1000, MAX_RETRY_AFTER_MS);
  }
  return Math.min(FIRST_BACKOFF_MS * 2 ** (attempt - 1), MAX_BACKOFF_MS);
}
