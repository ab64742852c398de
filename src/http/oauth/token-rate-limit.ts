import type { FastifyBaseLogger } from 'fastify';
import type { EndpointResponse } from '../../auth/oauth/authorization-server.ts';
import type { RateCounters } from '../../engine/ports.ts';
import { rateLimitHeaders, retryAfterSeconds } from '../plugins/rate-limit.ts';

/**
 * Token requests a minute per client: 10 a second. Each user of an app refreshes about once an hour,
 * so this serves tens of thousands of active users (and client-credentials tokens, which live an hour).
 */
export const TOKEN_REQUESTS_PER_CLIENT = 600;

/** The `X-RateLimit-Bucket` of token requests, which the token endpoint declares as its own limit. */
export const TOKEN_BUCKET = 'oauth_token';

/** What metering a token request decided: the headers to send, and the answer when it is refused. */
export interface TokenMetering {
  headers: Record<string, string>;
  refused?: EndpointResponse;
}

/**
 * The token endpoint's own limit, per client, in the shared rate-limit counters (Redis in scale-out,
 * so it holds across replicas). Only an authenticated client is counted: an unknown client id or a
 * wrong secret creates no counter, and nobody can spend a real app's allowance by naming its id. If the
 * counters cannot be reached the request is served (fail open) and logged, as for the other limits.
 */
export function tokenRateLimit(options: { counters: RateCounters }) {
  const limit = TOKEN_REQUESTS_PER_CLIENT;
  return async function meterTokenRequest(clientId: string, log: FastifyBaseLogger): Promise<TokenMetering> {
    let decision;
    try {
      decision = await options.counters.consume(`oauth-token:client:${clientId}`, limit);
    } catch (error) {
      log.warn({ err: error }, 'rate-limit counters unavailable; token request not metered');
      return { headers: {} };
    }
    const headers = rateLimitHeaders(TOKEN_BUCKET, limit, decision);
    if (decision.allowed) return { headers };
    const retryAfter = retryAfterSeconds(decision);
    return {
      headers,
      refused: {
        status: 429,
        headers: { 'cache-control': 'no-store', 'retry-after': String(retryAfter) },
        body: {
          error: 'rate_limit_exceeded',
          error_description: `this client's limit of ${limit} token requests per minute is reached; retry in ${retryAfter} s`,
        },
      },
    };
  };
}
