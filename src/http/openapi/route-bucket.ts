import type { RateLimitBucket } from '../../domain/rate-limits.ts';

/** The hosted A2A endpoint's calls: the JSON-RPC method names the bucket, `otherwise` for any other method. */
export interface JsonRpcMethodBuckets {
  byJsonRpcMethod: Readonly<Record<string, RateLimitBucket>>;
  otherwise: RateLimitBucket;
}

/** A limit the route keeps itself, outside the workspace buckets: its name (`X-RateLimit-Bucket`) and what it counts. */
export interface OwnRateLimit {
  ownLimit: string;
  per: string;
}

/** A route no limit counts, and why. */
export interface Unmetered {
  unmetered: string;
}

/**
 * Where a route's requests are counted, declared beside its scopes (`describeRoute`): read by the
 * rate-limit hook and published as the operation's `x-rate-limit-bucket`, so the two cannot differ. A
 * workspace bucket counts every request per workspace and credential.
 */
export type RouteBucket = RateLimitBucket | JsonRpcMethodBuckets | OwnRateLimit | Unmetered;

/** The workspace bucket a request to a route counts in, or undefined when the route is counted elsewhere or not at all. */
export function workspaceBucketOf(
  declared: RouteBucket,
  jsonRpcMethod: () => string | undefined,
): RateLimitBucket | undefined {
  if (typeof declared === 'string') return declared;
  if (!('byJsonRpcMethod' in declared)) return undefined;
  const method = jsonRpcMethod();
  const named =
    method !== undefined && Object.hasOwn(declared.byJsonRpcMethod, method)
      ? declared.byJsonRpcMethod[method]
      : undefined;
  return named ?? declared.otherwise;
}
