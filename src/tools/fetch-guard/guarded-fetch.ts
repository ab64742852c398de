import { isIP, type LookupFunction } from 'node:net';
import { fetch as undiciFetch, type Response as UndiciResponse } from 'undici';
import { createAddressPolicy, type AddressPolicy } from './address-policy.ts';
import { createGuardedAgent } from './guarded-agent.ts';
import { addressRefused, displayUrl, FetchRefusedError, fetchRefusal } from './fetch-refused-error.ts';
import { isRedirectStatus, nextHop, type Hop } from './redirect-hop.ts';

export interface GuardedFetchOptions {
  /** CIDR ranges reachable although not public (config.fetchAllow). */
  allow: readonly string[];
  /** Resolves host names; dns.lookup unless a test injects one. */
  lookup?: LookupFunction;
  /** Redirects followed before the fetch fails. Default 5. */
  maxRedirects?: number;
}

const DEFAULT_MAX_REDIRECTS = 5;

/**
 * A fetch with the global signature that reaches only public addresses (or the allowed ranges):
 * checked after DNS resolution, at connect time, and on every redirect hop, which it follows
 * itself so each hop's URL goes through the same checks. Request bodies are buffered so a 307/308
 * can resend them.
 */
export function createGuardedFetch(options: GuardedFetchOptions): typeof globalThis.fetch {
  const policy = createAddressPolicy(options.allow);
  const agent = createGuardedAgent(
    options.lookup === undefined ? { policy } : { policy, lookup: options.lookup },
  );
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;

  const fetchHop = async (hop: Hop, signal: AbortSignal): Promise<UndiciResponse> => {
    refuseUnfetchableUrl(hop.url, policy);
    try {
      return await undiciFetch(hop.url, {
        method: hop.method,
        headers: [...hop.headers],
        body: hop.body,
        signal,
        redirect: 'manual',
        dispatcher: agent,
      });
    } catch (error) {
      const refusal = fetchRefusal(error);
      if (refusal === undefined) throw error;
      throw new FetchRefusedError(displayUrl(hop.url), refusal.detail, { cause: error });
    }
  };

  return async (input, init) => {
    // The global Request applies fetch's own rules for merging a Request input with init.
    const request = new Request(input, init);
    let hop: Hop = {
      url: new URL(request.url),
      method: request.method,
      headers: new Headers(request.headers),
      body: request.body === null ? null : await request.arrayBuffer(),
    };
    for (let redirects = 0; ; redirects += 1) {
      const response = await fetchHop(hop, request.signal);
      const location = response.headers.get('location');
      if (request.redirect === 'manual' || !isRedirectStatus(response.status) || location === null) {
        return asGlobalResponse(response, redirects > 0);
      }
      await response.body?.cancel().catch(() => undefined);
      if (request.redirect === 'error') {
        throw new TypeError(`fetch failed: unexpected redirect from ${displayUrl(hop.url)}`);
      }
      if (redirects === maxRedirects) {
        throw new TypeError(
          `fetch failed: more than ${maxRedirects} redirects, the last from ${displayUrl(hop.url)}`,
        );
      }
      hop = nextHop(hop, response.status, location);
    }
  };
}

/** Refuses, before any request, a URL that is not http(s) or whose host is a refused IP literal. */
/** Checks one hop's URL before anything connects: its scheme, and an IP-literal host against the policy. */
export function refuseUnfetchableUrl(url: URL, policy: AddressPolicy): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchRefusedError(displayUrl(url), 'only http: and https: URLs are fetched');
  }
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) === 0) return;
  const reason = policy.check(host);
  if (reason !== undefined) throw addressRefused(displayUrl(url), host, host, reason);
}

const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([204, 205, 304]);

/**
 * The same response as an instance of the global Response: undici's own class is another copy's,
 * and callers such as the MCP SDK test `instanceof Response`. The body stream is handed over, not
 * copied. The constructor cannot set `url` and `redirected`, so they are defined on the instance.
 */
function asGlobalResponse(response: UndiciResponse, redirected: boolean): Response {
  const converted = new Response(NULL_BODY_STATUSES.has(response.status) ? null : response.body, {
    status: response.status,
    statusText: response.statusText,
    headers: [...response.headers],
  });
  Object.defineProperties(converted, {
    url: { value: response.url, enumerable: true },
    redirected: { value: redirected, enumerable: true },
  });
  return converted;
}
