/**
 * The signed-in credential, kept in this tab's session storage only: it ends with the tab and is
 * never shared with other tabs, never written to local storage or a cookie. An API key is stored as
 * `{ key, slug }`; an OAuth sign-in as `{ token, slug, expiresAt }` (an access token lasts one hour;
 * no refresh token ever reaches the browser).
 */
const STORAGE_KEY = 'agent-runs-console';

/** The credential as the console uses it: `key` is what goes in the `Authorization` header. */
export function loadCredentials() {
  try {
    const stored = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null');
    if (stored && typeof stored.slug === 'string') {
      if (typeof stored.key === 'string') return { kind: 'api_key', key: stored.key, slug: stored.slug };
      if (typeof stored.token === 'string' && typeof stored.expiresAt === 'string') {
        return { kind: 'oauth', key: stored.token, slug: stored.slug, expiresAt: stored.expiresAt };
      }
    }
  } catch {
    // An unreadable entry is as good as none.
  }
  return null;
}

export function saveCredentials(credentials) {
  const stored =
    credentials.kind === 'oauth'
      ? { token: credentials.key, slug: credentials.slug, expiresAt: credentials.expiresAt }
      : { key: credentials.key, slug: credentials.slug };
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(stored));
}

export function clearCredentials() {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** Whether an OAuth sign-in's access token has run out (API keys do not expire here). */
export function hasExpired(credentials, now = Date.now()) {
  return credentials.kind === 'oauth' && !(Date.parse(credentials.expiresAt) > now);
}
