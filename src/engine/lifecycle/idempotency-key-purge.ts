import type { Logger } from 'pino';
import type { IdempotencyKeyStore } from '../ports.ts';

/** How often each API process deletes the idempotency keys past their time. */
export const IDEMPOTENCY_PURGE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Deletes expired idempotency keys every `intervalMs`, off the request path (one indexed DELETE on
 * `expires_at`; replicas may overlap harmlessly). Until a row is purged, a claim treats it as absent.
 */
export function startIdempotencyKeyPurge(
  store: Pick<IdempotencyKeyStore, 'purgeExpired'>,
  logger: Logger,
  intervalMs = IDEMPOTENCY_PURGE_INTERVAL_MS,
): { stop(): void } {
  const timer = setInterval(() => {
    store.purgeExpired().then(
      (purged) => {
        if (purged > 0) logger.debug({ purged }, 'expired idempotency keys purged');
      },
      (error: unknown) => logger.warn({ err: error }, 'purging expired idempotency keys failed'),
    );
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
