import type {
  FastifyReply,
  FastifyRequest,
  onRequestAsyncHookHandler,
  preHandlerAsyncHookHandler,
} from 'fastify';
import { rateLimitSubject } from '../../auth/principal.ts';
import { rateLimitFor, type RateLimitBucket } from '../../domain/rate-limits.ts';
import type { RateCounters, RateDecision } from '../../engine/ports.ts';

const LIFECYCLE_ROUTES = /\/agent-runs\/:runId\/(tool-results|cancel|feedback)$/;
const RUN_START_ROUTES = /\/(agent-runs|agent-sessions\/:sessionId\/messages)$/;

/** Which bucket a workspace route draws from: run starts, lifecycle callbacks, other mutations, or transport. */
export function bucketOf(method: string, routeUrl: string): RateLimitBucket {
  if (method === 'GET' || method === 'HEAD') return 'transport';
  if (method === 'POST' && RUN_START_ROUTES.test(routeUrl)) return 'run_start';
  if (method === 'POST' && LIFECYCLE_ROUTES.test(routeUrl)) return 'lifecycle';
  return 'other_mutations';
}

export interface RateLimitOptions {
  counters: RateCounters;
  /** The request's bucket, when the route decides it (from its body: then run the hook as preHandler). */
  bucket?: (request: FastifyRequest) => RateLimitBucket;
}

/**
 * onRequest hook for workspace routes, after authentication (before the body is read): counts the request
 * in its bucket for (workspace, credential: the API key or the access token's grant), sets the X-RateLimit-* headers,
 * and answers `429 rate_limit_exceeded` with Retry-After past the limit. If
 * the counters cannot be reached the request is served (fail open) and logged.
 */
export function rateLimit(options: RateLimitOptions): onRequestAsyncHookHandler & preHandlerAsyncHookHandler {
  return async function rateLimitHook(request: FastifyRequest, reply: FastifyReply) {
    const principal = request.principal;
    if (!principal) return;
    const bucket = options.bucket?.(request) ?? bucketOf(request.method, request.routeOptions.url ?? '');
    const limit = rateLimitFor(bucket, principal.workspace.rateLimits);
    let decision;
    try {
      decision = await options.counters.consume(
        `${principal.workspace.id}:${rateLimitSubject(principal)}:${bucket}`,
        limit,
      );
    } catch (error) {
      request.log.warn({ err: error }, 'rate-limit counters unavailable; request not metered');
      return;
    }
    const resetSeconds = retryAfterSeconds(decision);
    reply.headers(rateLimitHeaders(bucket, limit, decision));
    if (decision.allowed) return;
    return reply
      .status(429)
      .header('retry-after', resetSeconds)
      .send({
        error: 'rate_limit_exceeded',
        code: 'rate_limit_exceeded',
        message: `rate limit of ${limit} ${bucket} requests per minute reached; retry in ${resetSeconds} s`,
      });
  };
}

/** The X-RateLimit-* headers of a metered answer (the OAuth token endpoint's limit sets them too). */
export function rateLimitHeaders(
  bucket: string,
  limit: number,
  decision: RateDecision,
): Record<string, string> {
  return {
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(decision.remaining),
    'x-ratelimit-reset': String(Math.ceil((Date.now() + decision.resetMs) / 1000)),
    'x-ratelimit-bucket': bucket,
  };
}

/** Seconds until the window resets, at least 1: the `Retry-After` of a refused request. */
export function retryAfterSeconds(decision: RateDecision): number {
  return Math.max(1, Math.ceil(decision.resetMs / 1000));
}
