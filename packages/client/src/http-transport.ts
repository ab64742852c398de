import type { Authorizer } from './credentials.ts';
import { errorFromResponse } from './error-from-response.ts';
import { AgentRunsError, ConnectionError, TimeoutError } from './errors.ts';
import { sleep } from './reconnect-policy.ts';
import { isRetryableStatus, retryDelayMs } from './retry-policy.ts';

/** Options every method of the client takes; `maxRetries` and `timeout` override the client's. */
export interface RequestOptions {
  /** Aborting rejects the call with the signal's reason (an `AbortError` by default), never retried. */
  signal?: AbortSignal;
  /** Further attempts after a connection error, a timeout, 408, 429 or 5xx (client default: 2). */
  maxRetries?: number;
  /**
   * Milliseconds one attempt may take, up to the last byte of the answer (client default: 10
   * minutes); then it fails with `TimeoutError`, retried like a connection error.
   */
  timeout?: number;
  /**
   * Sent as `Idempotency-Key`, the same on every retry of the call. Creating a run, a session or a
   * session message sends a generated key by default, so their retries never create twice; pass your
   * own to make a retry from another process safe too (within 24 hours), or `false` to send none. A
   * call that starts a run is retried only when it carries a key.
   */
  idempotencyKey?: string | false;
}

export type QueryValue = string | number | boolean | readonly string[] | undefined;

export interface HttpCall extends RequestOptions {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path from the service root, e.g. `/api/v1/workspaces/acme/models`. */
  path: string;
  query?: Readonly<Record<string, QueryValue>>;
  /** Sent as JSON when defined. */
  body?: unknown;
  headers?: Readonly<Record<string, string>>;
  /** The call starts a run: a second attempt could start a second one, so it is retried only with an idempotency key. */
  startsRun?: boolean;
  /** The service honors `Idempotency-Key` on the call (extensions §5): a key is generated unless the call sets one. */
  idempotentCreation?: boolean;
}

/** How one attempt ended: the value read from a success, or the typed error of the answer. */
type Outcome<T> = { ok: true; value: T } | { ok: false; error: AgentRunsError };

export interface HttpTransportOptions {
  baseUrl: URL;
  authorizer: Authorizer;
  fetch: typeof fetch;
  maxRetries: number;
  timeout: number;
}

/**
 * Sends calls to the service with the credential, retries what may pass on another try, turns
 * non-2xx answers into typed errors and network failures into `ConnectionError`/`TimeoutError`, and
 * after a 401 sends the call once more when the credential could be renewed (OAuth refresh).
 */
export class HttpTransport {
  readonly baseUrl: URL;
  readonly #authorizer: Authorizer;
  readonly #fetch: typeof fetch;
  readonly #maxRetries: number;
  readonly #timeout: number;

  constructor(options: HttpTransportOptions) {
    this.baseUrl = options.baseUrl;
    this.#authorizer = options.authorizer;
    this.#fetch = options.fetch;
    this.#maxRetries = options.maxRetries;
    this.#timeout = options.timeout;
  }

  /**
   * The successful response, its body unread (a stream): the call's timeout covers the wait for
   * the response's headers only. Throws the typed error of any other answer.
   */
  send(call: HttpCall): Promise<Response> {
    return this.#withRetries(call, (response) => Promise.resolve(response));
  }

  /** The parsed JSON body of a successful call; the timeout covers reading the body too. */
  async json<T>(call: HttpCall): Promise<T> {
    const text = await this.#withRetries(
      { ...call, headers: { accept: 'application/json', ...call.headers } },
      (response) => response.text(),
    );
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  async #withRetries<T>(request: HttpCall, read: (response: Response) => Promise<T>): Promise<T> {
    const key = idempotencyKeyOf(request);
    const call: HttpCall = { ...request, idempotencyKey: key ?? false };
    const maxRetries = call.startsRun && key === undefined ? 0 : (call.maxRetries ?? this.#maxRetries);
    const timeout = call.timeout ?? this.#timeout;
    for (let retry = 0; ; retry++) {
      let outcome: Outcome<T>;
      try {
        outcome = await this.#attempt(call, timeout, read);
      } catch (error) {
        if (!(error instanceof ConnectionError)) throw error;
        outcome = { ok: false, error };
      }
      if (outcome.ok) return outcome.value;
      const { error } = outcome;
      // A retry that meets its own first attempt still in progress waits for its answer.
      const retryable =
        error instanceof ConnectionError ||
        isRetryableStatus(error.status) ||
        (retry > 0 && error.code === 'idempotency_key_in_use');
      if (!retryable || retry >= maxRetries) throw error;
      await sleep(retryDelayMs(retry, error.headers), call.signal);
    }
  }

  /** One attempt (two after a renewable 401): its value, or the typed error of its answer. */
  async #attempt<T>(
    call: HttpCall,
    timeout: number,
    read: (response: Response) => Promise<T>,
  ): Promise<Outcome<T>> {
    const deadline = new AbortController();
    const timer = Number.isFinite(timeout) ? setTimeout(() => deadline.abort(), timeout) : undefined;
    const signal = call.signal ? AbortSignal.any([call.signal, deadline.signal]) : deadline.signal;
    try {
      let token = await this.#authorizer.token(call.signal);
      let response = await this.#fetchOnce(call, token, signal);
      if (response.status === 401 && (await this.#renew(response, token, call.signal))) {
        token = await this.#authorizer.token(call.signal);
        response = await this.#fetchOnce(call, token, signal);
      }
      if (!response.ok) return { ok: false, error: await errorFromResponse(response) };
      return { ok: true, value: await read(response) };
    } catch (error) {
      if (call.signal?.aborted) throw call.signal.reason;
      if (deadline.signal.aborted) {
        throw new TimeoutError(timeout, `${call.method} ${call.path} took longer than ${timeout} ms`, {
          cause: error,
        });
      }
      if (error instanceof AgentRunsError || !(error instanceof TypeError)) throw error;
      // fetch rejects with a TypeError when no response (or not all of it) came back.
      throw new ConnectionError(`${call.method} ${call.path}: ${describe(error)}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  #fetchOnce(call: HttpCall, token: string, signal: AbortSignal): Promise<Response> {
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    return this.#fetch(this.#url(call), {
      method: call.method,
      headers: {
        ...call.headers,
        authorization: `Bearer ${token}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...(typeof call.idempotencyKey === 'string' && { 'idempotency-key': call.idempotencyKey }),
      },
      ...(body !== undefined && { body }),
      signal,
    });
  }

  async #renew(response: Response, token: string, signal: AbortSignal | undefined): Promise<boolean> {
    const renewed = await this.#authorizer.renewAfter(token, signal);
    // The refused response is dropped: free its connection.
    if (renewed) await response.body?.cancel().catch(() => undefined);
    return renewed;
  }

  #url(call: HttpCall): URL {
    const url = new URL(this.baseUrl.pathname.replace(/\/$/, '') + call.path, this.baseUrl);
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value === undefined) continue;
      if (Array.isArray(value))
        for (const item of value as readonly string[]) url.searchParams.append(name, item);
      else url.searchParams.set(name, String(value));
    }
    return url;
  }
}

/** The key every attempt of the call sends: the caller's, a generated one for a creation, or none. */
function idempotencyKeyOf(call: HttpCall): string | undefined {
  if (call.idempotencyKey === false) return undefined;
  return call.idempotencyKey ?? (call.idempotentCreation ? globalThis.crypto.randomUUID() : undefined);
}

/** The network error with its cause (`fetch failed (connect ECONNREFUSED 127.0.0.1:1)`). */
function describe(error: Error): string {
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
}
