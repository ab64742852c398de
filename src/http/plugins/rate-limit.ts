import type {
  FastifyReply,
  FastifyRequest,
  onRequestAsyncHookHandler,
  preHandlerAsyncHookHandler,
} from 'fastify';
import { rateLimitSubject } from '../../auth/principal.ts';
import { rateLimitFor, type RateLimitBucket } from '../../domain/rate-limits.ts';
import type { RateCounters, RateDecision } from '../../engine/ports.ts';
import { workspaceBucketOf } from '../openapi/route-bucket.ts';

export interface RateLimitOptions {
  counters: RateCounters;
  /**
   * The JSON-RPC method a request calls, for routes whose bucket depends on it (`byJsonRpcMethod`):
   * it is read from the body, so the hook then runs as a preHandler.
   */
  jsonRpcMethodOf?: (request: FastifyRequest) => string | undefined;
  /** Requests counted later, by whoever defers them (a creation whose Idempotency-Key may replay). */
  deferred?: (request: FastifyRequest) => boolean;
}

/**
 * onRequest hook for workspace routes, after authentication (before the body is read): counts the request
 * in the bucket its route declares (`describeRoute`'s `bucket`) for (workspace, credential: the API key or
 * the access token's grant), sets the X-RateLimit-* headers, and answers `429 rate_limit_exceeded` with
 * Retry-After past the limit. If the counters cannot be reached the request is served (fail open) and logged.
 * A request `deferred` says is not counted here: whoever deferred it meters it (`bucketMeter`).
 */
export function rateLimit(options: RateLimitOptions): onRequestAsyncHookHandler & preHandlerAsyncHookHandler {
  const meter = bucketMeter(options.counters);
  return async function rateLimitHook(request: FastifyRequest, reply: FastifyReply) {
    if (!request.principal) return;
    const declared = request.routeOptions.config.bucket;
    if (declared === undefined) {
      throw new Error(`${request.method} ${request.routeOptions.url ?? ''} declares no rate-limit bucket`);
    }
    if (options.deferred?.(request)) return;
    const bucket = workspaceBucketOf(declared, () => options.jsonRpcMethodOf?.(request));
    if (bucket === undefined) return;
    if (!(await meter(request, reply, bucket))) return reply;
  };
}

/** Counts a request in a bucket: false once it answered `429` (past the limit), true otherwise. */
export type BucketMeter = (
  request: FastifyRequest,
  reply: FastifyReply,
  bucket: RateLimitBucket,
) => Promise<boolean>;

export function bucketMeter(counters: RateCounters): BucketMeter {
  return async (request, reply, bucket) => {
    const principal = request.principal;
    if (!principal) return true;
    const limit = rateLimitFor(bucket, principal.workspace.rateLimits);
    let decision;
    try {
      decision = await counters.consume(
        `${principal.workspace.id}:${rateLimitSubject(principal)}:${bucket}`,
        limit,
      );
    } catch (error) {
      request.log.warn({ err: error }, 'rate-limit counters unavailable; request not metered');
      return true;
    }
    const resetSeconds = retryAfterSeconds(decision);
    reply.headers(rateLimitHeaders(bucket, limit, decision));
    if (decision.allowed) return true;
    await reply
      .status(429)
      .header('retry-after', resetSeconds)
      .send({
        error: 'rate_limit_exceeded',
        code: 'rate_limit_exceeded',
        message: `rate limit of ${limit} ${bucket} requests per minute reached; retry in ${resetSeconds} s`,
      });
    return false;
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
