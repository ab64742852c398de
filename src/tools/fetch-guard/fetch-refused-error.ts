import { describeRefusal, type RefusalReason } from './address-policy.ts';

const ALLOW_HINT = '(set AGENT_RUNS_FETCH_ALLOW to allow a range)';

/** A server-side fetch the SSRF guard would not make; its message is meant for the model. */
export class FetchRefusedError extends Error {
  override name = 'FetchRefusedError';
  /** What was refused: a URL without credentials or query, or at connect time a host. */
  readonly target: string;
  /** Why, e.g. "10.0.0.5 is a private address (set AGENT_RUNS_FETCH_ALLOW to allow a range)". */
  readonly detail: string;

  constructor(target: string, detail: string, options?: ErrorOptions) {
    super(`refused to fetch ${target}: ${detail}`, options);
    this.target = target;
    this.detail = detail;
  }
}

/** The refusal of an address `host` is or resolves to. */
export function addressRefused(
  target: string,
  host: string,
  address: string,
  reason: RefusalReason,
): FetchRefusedError {
  const what = host === address ? `${address} is` : `${host} resolves to ${address},`;
  return new FetchRefusedError(target, `${what} ${describeRefusal(reason)} ${ALLOW_HINT}`);
}

/** The FetchRefusedError behind an error, however deep in `cause` chains (undici wraps it in "fetch failed"). */
export function fetchRefusal(error: unknown): FetchRefusedError | undefined {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const current = pending.shift();
    if (current instanceof FetchRefusedError) return current;
    if (!(current instanceof Error) || seen.has(current)) continue;
    seen.add(current);
    pending.push(current.cause);
    if (current instanceof AggregateError) pending.push(...(current.errors as unknown[]));
  }
  return undefined;
}

/** A URL as refusal messages show it: no credentials, query or fragment, which may carry secrets. */
export function displayUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
