import { createHash, randomBytes } from 'node:crypto';
import { randomBase62 } from '../../domain/ids.ts';
import type { OAuthScope } from '../../domain/oauth-scopes.ts';
import type { ConsoleHandoffStore, OAuthAppStore, WorkspaceStore } from '../../engine/ports.ts';
import type { AuthorizationServer } from '../oauth/authorization-server.ts';
import { hashSecret, secretMatches } from '../oauth/token-secrets.ts';
import { openHandoff, sealHandoff } from './handoff-seal.ts';

/** The console's redirect URI, under the service's `{base_url}`: an app registered with it serves the console. */
export const CONSOLE_CALLBACK_PATH = '/console/callback';

/** What the console calls: the runs list and views, new runs, sessions, models, feedback. */
export const CONSOLE_SCOPES: readonly OAuthScope[] = [
  'models:read',
  'runs:read',
  'runs:write',
  'sessions:read',
  'feedback:write',
];

/** A started sign-in waits this long for the person to sign in and consent. */
export const PENDING_SIGN_IN_SECONDS = 10 * 60;
/** The tab redeems its handoff within this long, or signs in again. */
export const HANDOFF_LIFETIME_SECONDS = 60;

/** A started sign-in, kept by the browser in a signed, HttpOnly cookie until the callback. */
export interface PendingConsoleSignIn {
  state: string;
  verifier: string;
  clientId: string;
  workspaceSlug: string;
}

/** Why a sign-in cannot start; the console shows each in words. */
export type StartRefusal = 'unknown_workspace' | 'oauth_apps_plan' | 'no_console_app';
/** Why the callback did not sign in. */
export type CallbackRefusal = 'bad_state' | 'access_denied' | 'authorization_failed' | 'exchange_failed';

export type StartAnswer =
  | { ok: true; authorizeLocation: string; pending: PendingConsoleSignIn }
  | { ok: false; refusal: StartRefusal };

export type CallbackAnswer =
  { ok: true; handoffId: string; browserBinding: string } | { ok: false; refusal: CallbackRefusal };

export type RedeemAnswer =
  { ok: true; accessToken: string; workspaceSlug: string; expiresAt: string } | { ok: false };

/** The callback's query, as the authorization server sent it back. */
export interface CallbackQuery {
  code: string | undefined;
  state: string | undefined;
  error: string | undefined;
  iss: string | undefined;
}

export interface ConsoleSignInStores {
  workspaces: Pick<WorkspaceStore, 'findBySlug'>;
  oauthApps: Pick<OAuthAppStore, 'listByWorkspace'>;
  handoffs: ConsoleHandoffStore;
}

/**
 * Console sign-in through OAuth. Every app is a confidential client, so the browser cannot exchange a
 * code: the service runs the Authorization Code flow with PKCE for the console (the workspace's app
 * registered with the console's callback), exchanges the code itself and hands the access token to the
 * tab through a single-use handoff that only that browser can redeem, within 60 s. The refresh token
 * never leaves the server.
 */
export class ConsoleSignIn {
  readonly #stores: ConsoleSignInStores;
  readonly #server: AuthorizationServer;

  constructor(stores: ConsoleSignInStores, server: AuthorizationServer) {
    this.#stores = stores;
    this.#server = server;
  }

  /** Finds the workspace's console app and builds the authorization request, with a fresh state and PKCE verifier. */
  async start(workspaceSlug: string, issuer: string): Promise<StartAnswer> {
    const workspace = await this.#stores.workspaces.findBySlug(workspaceSlug);
    if (!workspace) return { ok: false, refusal: 'unknown_workspace' };
    if (!workspace.features.oauthApps) return { ok: false, refusal: 'oauth_apps_plan' };
    const redirectUri = callbackUri(issuer);
    const apps = await this.#stores.oauthApps.listByWorkspace(workspace.id);
    const app = apps.find((candidate) => candidate.redirectUris.includes(redirectUri));
    if (!app) return { ok: false, refusal: 'no_console_app' };

    const pending: PendingConsoleSignIn = {
      state: randomBase62(32),
      verifier: randomBytes(32).toString('base64url'),
      clientId: app.id,
      workspaceSlug: workspace.slug,
    };
    const authorize = new URL(`${issuer}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: app.id,
      redirect_uri: redirectUri,
      scope: CONSOLE_SCOPES.join(' '),
      state: pending.state,
      code_challenge: createHash('sha256').update(pending.verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    return { ok: true, authorizeLocation: authorize.toString(), pending };
  }

  /**
   * The callback: the state must be the one this browser started with (else nothing else is looked
   * at); a refusal from the authorization server is reported; a code is exchanged in-process and its
   * access token sealed into a handoff bound to this browser.
   */
  async finish(
    query: CallbackQuery,
    pending: PendingConsoleSignIn | undefined,
    issuer: string,
  ): Promise<CallbackAnswer> {
    if (!pending || query.state === undefined || query.state !== pending.state) {
      return { ok: false, refusal: 'bad_state' };
    }
    if (query.iss !== undefined && query.iss !== issuer) return { ok: false, refusal: 'bad_state' };
    if (query.error !== undefined) {
      return {
        ok: false,
        refusal: query.error === 'access_denied' ? 'access_denied' : 'authorization_failed',
      };
    }
    if (query.code === undefined || query.code === '') return { ok: false, refusal: 'authorization_failed' };

    const exchanged = await this.#server.exchangeOwnCode({
      clientId: pending.clientId,
      code: query.code,
      codeVerifier: pending.verifier,
      redirectUri: callbackUri(issuer),
    });
    if (!exchanged.ok) return { ok: false, refusal: 'exchange_failed' };
    const workspace = await this.#stores.workspaces.findBySlug(pending.workspaceSlug);
    if (!workspace) return { ok: false, refusal: 'exchange_failed' };

    const handoffId = randomBase62(43);
    const browserBinding = randomBase62(32);
    await this.#stores.handoffs.create({
      idHash: hashSecret(handoffId),
      workspaceId: workspace.id,
      browserBindingHash: hashSecret(browserBinding),
      sealedToken: sealHandoff(handoffId, {
        accessToken: exchanged.accessToken,
        workspaceSlug: workspace.slug,
      }),
      tokenExpiresAt: exchanged.expiresAt.toISOString(),
      expiresAt: new Date(Date.now() + HANDOFF_LIFETIME_SECONDS * 1000).toISOString(),
    });
    return { ok: true, handoffId, browserBinding };
  }

  /**
   * Redeems a handoff once: unknown, used, expired, or presented without the browser's binding cookie
   * (a handoff id sent to someone else's browser), it is refused; a refused attempt with the right id
   * still uses it up.
   */
  async redeem(handoffId: string, browserBinding: string | undefined): Promise<RedeemAnswer> {
    const handoff = await this.#stores.handoffs.take(hashSecret(handoffId));
    if (!handoff || browserBinding === undefined) return { ok: false };
    if (!secretMatches(browserBinding, handoff.browserBindingHash)) return { ok: false };
    const contents = openHandoff(handoffId, handoff.sealedToken);
    if (!contents) return { ok: false };
    return { ok: true, ...contents, expiresAt: handoff.tokenExpiresAt };
  }
}

/** The console's redirect URI for this issuer. */
export function callbackUri(issuer: string): string {
  return `${issuer}${CONSOLE_CALLBACK_PATH}`;
}
