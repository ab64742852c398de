/** Calls to the agent-runs API with the signed-in credential: JSON in, JSON out, `{ error, message }` on failure. */

export class ApiError extends Error {
  constructor(status, body) {
    super(body && typeof body.message === 'string' ? body.message : `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = body && typeof body.error === 'string' ? body.error : 'http_error';
  }
}

/** The service's base URL: the console's page is `{base}/console`. */
export function serviceBase() {
  return new URL('.', location.href).href.replace(/\/$/, '');
}

async function call(url, key, { method = 'GET', body, signal } = {}) {
  const headers = { authorization: `Bearer ${key}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
    cache: 'no-store',
  });
  const text = await response.text();
  let parsed = null;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { message: text.slice(0, 200) };
    }
  }
  if (!response.ok) throw new ApiError(response.status, parsed);
  return parsed;
}

/** Which workspace a key belongs to (`GET /api/oauth/userinfo`); throws `ApiError` for a refused key. */
export async function discoverWorkspace(base, key) {
  const info = await call(`${base}/api/oauth/userinfo`, key);
  return info.workspaceSlug;
}

/**
 * Redeems the single-use handoff the OAuth sign-in redirected with (`#/oauth-handoff/{id}`): the
 * browser's HttpOnly binding cookie goes with it. Throws `ApiError` when it is refused.
 */
export async function redeemHandoff(base, handoff) {
  const response = await fetch(`${base}/console/oauth/handoff`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ handoff }),
    credentials: 'same-origin',
    cache: 'no-store',
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, body);
  return { key: body.accessToken, slug: body.workspaceSlug, expiresAt: body.expiresAt };
}

/**
 * The workspace API of one signed-in tab. A `401` on any call means the key no longer works (revoked,
 * expired): `onUnauthorized` ends the sign-in.
 */
export function workspaceApi({ base, key, slug, onUnauthorized = () => {} }) {
  const ws = `${base}/api/v1/workspaces/${encodeURIComponent(slug)}`;
  const guarded = (promise) =>
    promise.catch((error) => {
      if (error instanceof ApiError && error.status === 401) onUnauthorized();
      throw error;
    });
  return {
    slug,
    key,
    ws,
    onUnauthorized,
    get: (path, options = {}) => guarded(call(`${ws}${path}`, key, options)),
    post: (path, body, options = {}) =>
      guarded(call(`${ws}${path}`, key, { ...options, method: 'POST', body })),
  };
}

/** `?a=1&b=2` from an object, skipping empty values; arrays repeat the key. */
export function queryString(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one !== undefined && one !== null && one !== '') search.append(name, String(one));
    }
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
