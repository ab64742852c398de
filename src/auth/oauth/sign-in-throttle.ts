import type { RateCounters } from '../../engine/ports.ts';

/** Attempts per minute for one account (workspace and email), and from one address over all accounts. */
export const SIGN_IN_ATTEMPTS_PER_ACCOUNT = 10;
export const SIGN_IN_ATTEMPTS_PER_ADDRESS = 60;

/**
 * Brute-force throttling of sign-in, counted in the rate-limit counters (Redis in scale-out, so the
 * limit holds across replicas). Every attempt counts, failed or not, so the check happens before the
 * password is verified. Returns the seconds to wait when over either limit.
 */
export async function signInThrottle(
  counters: RateCounters,
  attempt: { workspaceId: string; email: string; address: string },
): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }> {
  const account = await counters.consume(
    `oauth-sign-in:account:${attempt.workspaceId}:${attempt.email.toLowerCase()}`,
    SIGN_IN_ATTEMPTS_PER_ACCOUNT,
  );
  const address = await counters.consume(
    `oauth-sign-in:address:${attempt.address}`,
    SIGN_IN_ATTEMPTS_PER_ADDRESS,
  );
  const refused = [account, address].filter((decision) => !decision.allowed);
  if (refused.length === 0) return { allowed: true };
  const resetMs = Math.max(...refused.map((decision) => decision.resetMs));
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(resetMs / 1000)) };
}
