import type { Authorizer } from './credentials.ts';
import { errorFromResponse } from './error-from-response.ts';

/** Options every method of the client takes. */
export interface RequestOptions {
  signal?: AbortSignal;
}

export type QueryValue = string | number | boolean | readonly string[] | undefined;

export interface HttpCall extends RequestOptions {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path from the service root, e.g. `/api/v1/workspaces/acme/models`. */
  path: string;
  query?: Readonly<Record<string, QueryValue>>;
  /** Sent as JSON when defined. */
  body?: unknown;
  headers?: Readonly<Record<string, string>>;
}

export interface HttpTransportOptions {
  baseUrl: URL;
  authorizer: Authorizer;
  fetch: typeof fetch;
}

/**
 * Sends calls to the service with the credential, turns non-2xx answers into typed errors, and after a
 * 401 sends the call once more when the credential could be renewed (OAuth refresh).
 */
export class HttpTransport {
  readonly baseUrl: URL;
  readonly #authorizer: Authorizer;
  readonly #fetch: typeof fetch;

  constructor(options: HttpTransportOptions) {
    this.baseUrl = options.baseUrl;
    this.#authorizer = options.authorizer;
    this.#fetch = options.fetch;
  }

  /** The successful response (its body unread); throws the typed error of any other. */
  async send(call: HttpCall): Promise<Response> {
    const url = this.#url(call);
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    let token = await this.#authorizer.token(call.signal);
    let response = await this.#attempt(url, call, body, token);
    if (response.status === 401 && (await this.#renew(response, token, call.signal))) {
      token = await this.#authorizer.token(call.signal);
      response = await this.#attempt(url, call, body, token);
    }
    if (!response.ok) throw await errorFromResponse(response);
    return response;
  }

  /** The parsed JSON body of a successful call. */
  async json<T>(call: HttpCall): Promise<T> {
    const response = await this.send({ ...call, headers: { accept: 'application/json', ...call.headers } });
    const text = await response.text();
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  #attempt(url: URL, call: HttpCall, body: string | undefined, token: string): Promise<Response> {
    return this.#fetch(url, {
      method: call.method,
      headers: {
        ...call.headers,
        authorization: `Bearer ${token}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body }),
      ...(call.signal && { signal: call.signal }),
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
