import type { Authorizer, OAuthCredential, OAuthTokens } from './credentials.ts';
import { errorCodeOf } from './error-from-response.ts';
import { OAuthRefreshError } from './errors.ts';

/** Refresh this long before a known expiry, so a request never leaves with a token about to lapse. */
const EXPIRY_MARGIN_MS = 60_000;

export interface OAuthAuthorizerOptions {
  credential: OAuthCredential;
  baseUrl: URL;
  fetch: typeof fetch;
}

/**
 * Holds an OAuth grant's tokens and refreshes the access token with the (non-rotating) refresh token:
 * lazily after a 401, or shortly before a known expiry. Concurrent callers share one refresh.
 */
export class OAuthAuthorizer implements Authorizer {
  readonly #credential: OAuthCredential;
  readonly #baseUrl: URL;
  readonly #fetch: typeof fetch;
  #tokens: OAuthTokens;
  #tokenUrl: string | undefined;
  #refreshing: Promise<OAuthTokens> | undefined;

  constructor(options: OAuthAuthorizerOptions) {
    const { credential } = options;
    this.#credential = credential;
    this.#baseUrl = options.baseUrl;
    this.#fetch = options.fetch;
    this.#tokenUrl = credential.tokenUrl;
    this.#tokens = {
      accessToken: credential.accessToken,
      refreshToken: credential.refreshToken,
      ...(credential.expiresAt !== undefined && { expiresAt: new Date(credential.expiresAt) }),
    };
  }

  /** The tokens currently held (after any refresh). */
  get tokens(): OAuthTokens {
    return { ...this.#tokens };
  }

  async token(signal?: AbortSignal): Promise<string> {
    const expiresAt = this.#tokens.expiresAt?.getTime();
    if (expiresAt !== undefined && expiresAt - Date.now() < EXPIRY_MARGIN_MS) {
      return (await this.refresh(signal)).accessToken;
    }
    return this.#tokens.accessToken;
  }

  async renewAfter(rejected: string, signal?: AbortSignal): Promise<boolean> {
    // Another request already replaced the token this one was sent with: retry with the new one.
    if (this.#tokens.accessToken !== rejected) return true;
    await this.refresh(signal);
    return true;
  }

  /** Exchanges the refresh token for a new access token (one exchange at a time, shared). */
  refresh(signal?: AbortSignal): Promise<OAuthTokens> {
    // The shared exchange is not tied to one caller's signal: another caller may still need it.
    this.#refreshing ??= this.#exchange().finally(() => {
      this.#refreshing = undefined;
    });
    return signal ? raceAbort(this.#refreshing, signal) : this.#refreshing;
  }

  async #exchange(): Promise<OAuthTokens> {
    const tokenUrl = await this.#discoverTokenUrl();
    const { clientId, clientSecret } = this.#credential;
    const form = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: this.#tokens.refreshToken,
    });
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (this.#credential.tokenEndpointAuthMethod === 'client_secret_post') {
      form.set('client_id', clientId);
      form.set('client_secret', clientSecret);
    } else {
      headers.authorization = basicCredentials(clientId, clientSecret);
    }
    const response = await this.#fetch(tokenUrl, { method: 'POST', headers, body: form.toString() });
    const body: unknown = await response.json().catch(() => undefined);
    if (!response.ok) throw refreshFailure(response, body);
    const granted = body as {
      access_token?: unknown;
      refresh_token?: unknown;
      expires_in?: unknown;
      scope?: unknown;
    };
    if (typeof granted.access_token !== 'string') throw refreshFailure(response, body);
    const tokens: OAuthTokens = {
      accessToken: granted.access_token,
      // Non-rotating: the same refresh token comes back, but keep a new one if a server sends it.
      refreshToken:
        typeof granted.refresh_token === 'string' ? granted.refresh_token : this.#tokens.refreshToken,
      ...(typeof granted.expires_in === 'number' && {
        expiresAt: new Date(Date.now() + granted.expires_in * 1000),
      }),
      ...(typeof granted.scope === 'string' && { scope: granted.scope }),
    };
    this.#tokens = tokens;
    await this.#credential.onTokens?.({ ...tokens });
    return tokens;
  }

  async #discoverTokenUrl(): Promise<string> {
    if (this.#tokenUrl !== undefined) return this.#tokenUrl;
    const url = new URL('/.well-known/oauth-authorization-server', this.#baseUrl);
    const response = await this.#fetch(url, { headers: { accept: 'application/json' } });
    const metadata = (await response.json().catch(() => undefined)) as
      { token_endpoint?: unknown } | undefined;
    if (!response.ok || typeof metadata?.token_endpoint !== 'string') {
      throw new OAuthRefreshError({
        status: response.status,
        code: 'discovery_failed',
        message: `no token_endpoint in the authorization server metadata at ${url.toString()}`,
        body: metadata,
        headers: response.headers,
      });
    }
    this.#tokenUrl = metadata.token_endpoint;
    return this.#tokenUrl;
  }
}

/** RFC 6749 §2.3.1: each part form-encoded, then joined and base64-encoded. */
function basicCredentials(clientId: string, clientSecret: string): string {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${btoa(`${encode(clientId)}:${encode(clientSecret)}`)}`;
}

function refreshFailure(response: Response, body: unknown): OAuthRefreshError {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const description = typeof fields.error_description === 'string' ? `: ${fields.error_description}` : '';
  const code = errorCodeOf(response.status, body);
  return new OAuthRefreshError({
    status: response.status,
    code,
    message: `the access token could not be refreshed (${code}${description})`,
    body,
    headers: response.headers,
  });
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
