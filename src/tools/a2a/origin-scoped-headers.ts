import { isRedirectStatus, nextHop, type Hop } from '../fetch-guard/redirect-hop.ts';
import type { GuardedFetch } from '../server-tool.ts';

/** Redirects followed from the headers' origin before the fetch fails (the guard's own default). */
const MAX_REDIRECTS = 5;

/**
 * Sends `headers` with the requests to `origin` only (the origin of the URL the caller named), under
 * each request's own headers (the SDK's content type and version win): credentials never reach
 * another origin. A request to `origin` follows its redirects here, so a hop to another origin goes
 * without them; requests to other origins go through untouched.
 */
export function originScopedHeaders(
  fetch: GuardedFetch,
  origin: string,
  headers: Readonly<Record<string, string>>,
): GuardedFetch {
  if (Object.keys(headers).length === 0) return fetch;
  return async (input, init) => {
    const request = new Request(input, init);
    if (new URL(request.url).origin !== origin) return fetch(input, init);
    let hop: Hop = {
      url: new URL(request.url),
      method: request.method,
      headers: new Headers(request.headers),
      body: request.body === null ? null : await request.arrayBuffer(),
    };
    for (let redirects = 0; ; redirects += 1) {
      const scoped = hop.url.origin === origin;
      const response = await fetch(hop.url, {
        method: hop.method,
        headers: scoped ? withScoped(headers, hop.headers) : hop.headers,
        body: hop.body,
        signal: request.signal,
        // Off the origin, nothing is added any more: the fetch follows the rest itself.
        redirect: scoped ? 'manual' : request.redirect,
      });
      const location = response.headers.get('location');
      if (
        !scoped ||
        request.redirect === 'manual' ||
        !isRedirectStatus(response.status) ||
        location === null
      ) {
        return response;
      }
      await response.body?.cancel().catch(() => undefined);
      if (request.redirect === 'error' || redirects === MAX_REDIRECTS) {
        throw new TypeError(`fetch failed: redirect from ${hop.url.origin}${hop.url.pathname} not followed`);
      }
      hop = nextHop(hop, response.status, location);
    }
  };
}

function withScoped(scoped: Readonly<Record<string, string>>, own: Headers): Headers {
  const merged = new Headers(scoped);
  own.forEach((value, name) => merged.set(name, value));
  return merged;
}
