/**
 * The only hosts a URL in the docs may name: the loopback addresses a reader's own service listens
 * on, `HOST`, the spec's placeholder in `http://HOST:PORT`, and `…`, an elided URL (`postgres://…`).
 * A scheme alone (`https://`, as in
 * "when the URL is https://") names no host and is allowed too. Everything else points outside the
 * repository and fails the docs check.
 */
export const ALLOWED_URL_HOSTS: ReadonlySet<string> = new Set([
  '127.0.0.1',
  'localhost',
  '[::1]',
  'HOST',
  '…',
]);

/** Every `scheme://…` in the text (prose and code alike), with its offset. */
export function urlsIn(text: string): Array<{ url: string; offset: number }> {
  return [...text.matchAll(/\b[a-z][a-z0-9+.-]*:\/\/[^\s<>"'`)\]}]*/gi)].map((match) => ({
    url: match[0],
    offset: match.index,
  }));
}

/** The host a URL names (`''` for none), user info and port left out. */
export function urlHost(url: string): string {
  const authority = url.slice(url.indexOf('://') + 3).split(/[/?#]/)[0] ?? '';
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  return host.split(':')[0] ?? '';
}

export function isAllowedUrl(url: string): boolean {
  const host = urlHost(url);
  return host === '' || ALLOWED_URL_HOSTS.has(host);
}
