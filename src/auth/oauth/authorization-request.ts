import { parseScopeParameter, type OAuthScope } from '../../domain/oauth-scopes.ts';
import type { OAuthClientRecord, OAuthStore } from '../../engine/ports.ts';

/** A checked authorization request, ready for sign-in and consent. */
export interface ValidAuthorizationRequest {
  client: OAuthClientRecord;
  redirectUri: string;
  scopes: OAuthScope[];
  state: string | null;
  codeChallenge: string;
}

export type AuthorizationRequestCheck =
  | { ok: true; request: ValidAuthorizationRequest }
  /** The client or its redirect URI could not be verified: say so on a page, never redirect. */
  | { ok: false; redirect: false; message: string }
  /** Anything else goes back to the app's verified redirect URI (RFC 6749 §4.1.2.1). */
  | {
      ok: false;
      redirect: true;
      redirectUri: string;
      state: string | null;
      error: string;
      description: string;
    };

/** An S256 challenge is the base64url SHA-256 of the verifier: 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const MAX_STATE_LENGTH = 2048;
/** RFC 6749's VSCHAR: what `state` may hold. */
const VISIBLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Checks the authorization endpoint's query. PKCE with `S256` is mandatory: a missing challenge, a
 * missing method (which means `plain`) and `plain` are refused.
 */
export async function checkAuthorizationRequest(
  store: OAuthStore,
  query: Record<string, unknown>,
): Promise<AuthorizationRequestCheck> {
  const clientId = query.client_id;
  if (typeof clientId !== 'string' || clientId === '') {
    return {
      ok: false,
      redirect: false,
      message: 'The request names no application (client_id is missing).',
    };
  }
  const client = await store.findClient(clientId);
  if (!client) return { ok: false, redirect: false, message: 'The application is not registered.' };

  const requestedRedirect = query.redirect_uri;
  let redirectUri: string;
  if (requestedRedirect === undefined && client.app.redirectUris.length === 1) {
    redirectUri = client.app.redirectUris[0] as string;
  } else if (typeof requestedRedirect === 'string' && client.app.redirectUris.includes(requestedRedirect)) {
    redirectUri = requestedRedirect;
  } else {
    return {
      ok: false,
      redirect: false,
      message: 'The redirect URI is missing or is not one registered for this application.',
    };
  }

  const rawState = query.state;
  const state = typeof rawState === 'string' && rawState !== '' ? rawState : null;
  const refuse = (error: string, description: string): AuthorizationRequestCheck => ({
    ok: false,
    redirect: true,
    redirectUri,
    state,
    error,
    description,
  });
  if (
    rawState !== undefined &&
    (typeof rawState !== 'string' || rawState.length > MAX_STATE_LENGTH || !VISIBLE_ASCII.test(rawState))
  ) {
    return refuse(
      'invalid_request',
      `state must be given once, in visible ASCII, at most ${MAX_STATE_LENGTH} characters`,
    );
  }
  if (query.response_type !== 'code') {
    return refuse('unsupported_response_type', 'response_type must be code');
  }
  const method = query.code_challenge_method;
  const challenge = query.code_challenge;
  if (challenge === undefined) {
    return refuse('invalid_request', 'code_challenge is required: PKCE with S256 is mandatory');
  }
  if (method !== 'S256') {
    return refuse('invalid_request', 'code_challenge_method must be S256 (plain is not allowed)');
  }
  if (typeof challenge !== 'string' || !S256_CHALLENGE.test(challenge)) {
    return refuse(
      'invalid_request',
      'code_challenge must be the base64url SHA-256 of the verifier (43 characters)',
    );
  }
  if (typeof query.scope !== 'string' || query.scope.trim() === '') {
    return refuse('invalid_scope', 'scope is required: name at least one scope');
  }
  const { scopes, unknown } = parseScopeParameter(query.scope);
  if (unknown.length > 0) return refuse('invalid_scope', `unknown scope: ${unknown.join(' ')}`);
  if (!client.workspace.features.oauthApps) {
    return refuse('unauthorized_client', "the workspace's plan does not include OAuth applications");
  }
  return { ok: true, request: { client, redirectUri, scopes, state, codeChallenge: challenge } };
}

/** The app's redirect URI with an error (and the state and issuer) in its query. */
export function errorRedirect(
  redirectUri: string,
  parameters: { error: string; description?: string; state: string | null; issuer: string },
): string {
  const url = new URL(redirectUri);
  url.searchParams.set('error', parameters.error);
  if (parameters.description) url.searchParams.set('error_description', parameters.description);
  if (parameters.state !== null) url.searchParams.set('state', parameters.state);
  url.searchParams.set('iss', parameters.issuer);
  return url.toString();
}
