/**
 * The signed-in credential, kept in this tab's session storage only: it ends with the tab and is
 * never shared with other tabs, never written to local storage or a cookie.
 */
const STORAGE_KEY = 'agent-runs-console';

export function loadCredentials() {
  try {
    const stored = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null');
    if (stored && typeof stored.key === 'string' && typeof stored.slug === 'string') return stored;
  } catch {
    // An unreadable entry is as good as none.
  }
  return null;
}

export function saveCredentials(credentials) {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ key: credentials.key, slug: credentials.slug }));
}

export function clearCredentials() {
  sessionStorage.removeItem(STORAGE_KEY);
}
