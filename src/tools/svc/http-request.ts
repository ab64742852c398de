import type { HttpToolTarget } from '../../domain/workspace-tool.ts';

const ACCEPT = 'application/json, text/*;q=0.9, */*;q=0.5';

export interface HttpToolRequest {
  url: string;
  init: { method: string; headers: Headers; body?: string };
}

/**
 * One call's request: GET and DELETE carry the arguments as query parameters
 * (scalars as strings, objects and arrays as JSON), the other methods as a JSON
 * body. The row's headers go on every request and win over the defaults; the
 * call's `Idempotency-Key` (its toolUseId, the same on every execution of the
 * call) wins over them (extensions §5).
 */
export function httpRequest(
  target: HttpToolTarget,
  args: Record<string, unknown>,
  idempotencyKey?: string,
): HttpToolRequest {
  const inQuery = target.method === 'GET' || target.method === 'DELETE';
  const headers = new Headers({ accept: ACCEPT, ...(!inQuery && { 'content-type': 'application/json' }) });
  for (const [name, value] of Object.entries(target.headers)) headers.set(name, value);
  if (idempotencyKey !== undefined) headers.set('idempotency-key', idempotencyKey);
  if (inQuery) return { url: withQuery(target.url, args), init: { method: target.method, headers } };
  return { url: target.url, init: { method: target.method, headers, body: JSON.stringify(args) } };
}

/** Appends to the url's own query without re-encoding it (URLSearchParams would rewrite `%20` as `+`). */
function withQuery(url: string, args: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    params.append(name, typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value));
  }
  const extra = params.toString();
  if (extra === '') return url;
  const target = new URL(url);
  target.search = target.search === '' ? `?${extra}` : `${target.search}&${extra}`;
  return target.href;
}
