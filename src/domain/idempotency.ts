import { InvalidRequestError } from './errors.ts';

/** 1–255 visible ASCII characters (extensions §5). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** A kept key is honored this long after its answer (the spec's minimum: 24 hours). */
export const IDEMPOTENCY_KEEP_MS = 24 * 60 * 60 * 1000;

/**
 * A claim this old without an answer was left by a request that crashed (or lost its database): the
 * next request with the key takes it over. Creations answer in well under a second; the longest is a
 * run whose tools are listed from remote servers at creation, bounded by their timeouts.
 */
export const IDEMPOTENCY_STALE_CLAIM_MS = 60_000;

/** What `Retry-After` says on `409 idempotency_key_in_use`: the first request is about to answer. */
export const IDEMPOTENCY_RETRY_AFTER_SECONDS = 1;

/** The header's value, checked: `400 invalid_request` when it breaks the rule. */
export function parseIdempotencyKey(value: string | string[]): string {
  if (typeof value !== 'string') {
    throw new InvalidRequestError('Idempotency-Key: send the header once');
  }
  if (!IDEMPOTENCY_KEY.test(value)) {
    throw new InvalidRequestError('Idempotency-Key: must be 1 to 255 visible ASCII characters');
  }
  return value;
}
