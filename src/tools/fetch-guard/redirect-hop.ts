/** One request of a fetch, the first or one a redirect leads to. The body is buffered so 307/308 can resend it. */
export interface Hop {
  url: URL;
  method: string;
  headers: Headers;
  body: ArrayBuffer | null;
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const REQUEST_BODY_HEADERS = ['content-encoding', 'content-language', 'content-location', 'content-type'];
// Credentials meant for one origin are not sent to another (fetch drops the same ones).
const CROSS_ORIGIN_DROPPED_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'host'];

export function isRedirectStatus(status: number): boolean {
  return REDIRECT_STATUSES.has(status);
}

/** The request a redirect leads to, with the method and body changes fetch makes (WHATWG HTTP-redirect fetch). */
export function nextHop(hop: Hop, status: number, location: string): Hop {
  let url: URL;
  try {
    url = new URL(location, hop.url);
  } catch (error) {
    throw new TypeError(`fetch failed: invalid redirect location ${JSON.stringify(location)}`, {
      cause: error,
    });
  }
  const headers = new Headers(hop.headers);
  let { method, body } = hop;
  if (((status === 301 || status === 302) && method === 'POST') || (status === 303 && !isGetOrHead(method))) {
    method = 'GET';
    body = null;
    for (const name of REQUEST_BODY_HEADERS) headers.delete(name);
  }
  if (url.origin !== hop.url.origin) {
    for (const name of CROSS_ORIGIN_DROPPED_HEADERS) headers.delete(name);
  }
  return { url, method, headers, body };
}

function isGetOrHead(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}
