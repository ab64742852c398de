import Tokens from '@fastify/csrf';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashSecret } from '../../auth/oauth/token-secrets.ts';
import { randomBase62 } from '../../domain/ids.ts';
import type {
  BrowserSession,
  OAuthFlowRepository,
} from '../../storage/repositories/oauth-flow-repository.ts';

export const SESSION_COOKIE = 'svc_oauth_session';
const SESSION_LIFETIME_SECONDS = 12 * 60 * 60;

/**
 * The authorization pages' browser sessions: a random id in a signed cookie (`HttpOnly`, `SameSite=Lax`,
 * `Secure` when the service is served over HTTPS), its hash and CSRF secret in storage, so any replica
 * serves any step. Form tokens are bound to the session's secret and to the authorization request.
 */
export class BrowserSessions {
  readonly #flow: OAuthFlowRepository;
  readonly #secure: boolean;
  readonly #tokens = Tokens({ userInfo: true }) as unknown as Tokens.TokensUserinfo;

  constructor(flow: OAuthFlowRepository, options: { secure: boolean }) {
    this.#flow = flow;
    this.#secure = options.secure;
  }

  /** The request's session, unless it has none, its cookie's signature is wrong or it expired. */
  async current(request: FastifyRequest): Promise<BrowserSession | undefined> {
    const cookie = request.cookies[SESSION_COOKIE];
    if (!cookie) return undefined;
    const unsigned = request.unsignCookie(cookie);
    if (!unsigned.valid || !unsigned.value) return undefined;
    return this.#flow.findSession(hashSecret(unsigned.value));
  }

  /** A new session (replacing `previous`, so signing in always gets a fresh id) and its cookie. */
  async start(
    reply: FastifyReply,
    workspaceId: string,
    userId: string | null,
    previous?: BrowserSession,
  ): Promise<BrowserSession> {
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
    reply.setCookie(SESSION_COOKIE, id, {
      signed: true,
      httpOnly: true,
      sameSite: 'lax',
      secure: this.#secure,
      path: '/oauth',
      maxAge: SESSION_LIFETIME_SECONDS,
    });
    return session;
  }

  csrfToken(session: BrowserSession, requestId: string): string {
    return this.#tokens.create(session.csrfSecret, requestId);
  }

  csrfValid(session: BrowserSession, requestId: string, token: unknown): boolean {
    return typeof token === 'string' && this.#tokens.verify(session.csrfSecret, token, requestId);
  }
}
