import Tokens from '@fastify/csrf';
import { randomBase62 } from '../../domain/ids.ts';
import type { BrowserSession, OAuthFlowStore } from '../../engine/ports.ts';
import { hashSecret } from './token-secrets.ts';

/** A browser session lasts this long; its cookie's `Max-Age` is the same. */
export const SESSION_LIFETIME_SECONDS = 12 * 60 * 60;

/** A session just started: the id its cookie must carry (stored only as a hash) and the session. */
export interface StartedSession {
  id: string;
  session: BrowserSession;
}

/**
 * The authorization pages' browser sessions: a random id (carried by a signed cookie, which `http/`
 * sets and reads), its hash and CSRF secret in storage, so any replica serves any step. Form tokens
 * are bound to the session's secret and to the authorization request.
 */
export class BrowserSessions {
  readonly #flow: OAuthFlowStore;
  readonly #tokens = Tokens({ userInfo: true }) as unknown as Tokens.TokensUserinfo;

  constructor(flow: OAuthFlowStore) {
    this.#flow = flow;
  }

  /** The session with this id, unless there is none or it expired. */
  async find(id: string | undefined): Promise<BrowserSession | undefined> {
    if (!id) return undefined;
    return this.#flow.findSession(hashSecret(id));
  }

  /** A new session (replacing `previous`, so signing in always gets a fresh id). */
  async start(
    workspaceId: string,
    userId: string | null,
    previous?: BrowserSession,
  ): Promise<StartedSession> {
    if (previous) await this.#flow.deleteSession(previous.idHash);
    const id = randomBase62(43);
    const session: BrowserSession = {
      idHash: hashSecret(id),
      workspaceId,
      userId,
      csrfSecret: await this.#tokens.secret(),
      expiresAt: new Date(Date.now() + SESSION_LIFETIME_SECONDS * 1000).toISOString(),
    };
    await this.#flow.createSession(session);
    return { id, session };
  }

  csrfToken(session: BrowserSession, requestId: string): string {
    return this.#tokens.create(session.csrfSecret, requestId);
  }

  csrfValid(session: BrowserSession, requestId: string, token: string | undefined): boolean {
    return token !== undefined && this.#tokens.verify(session.csrfSecret, token, requestId);
  }
}
