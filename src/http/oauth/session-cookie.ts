import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_LIFETIME_SECONDS } from '../../auth/oauth/browser-sessions.ts';

export const SESSION_COOKIE = 'svc_oauth_session';

/**
 * The cookie that carries the authorization pages' browser session: signed, `HttpOnly`,
 * `SameSite=Lax`, `Secure` when the service is served over HTTPS, scoped to `/oauth`.
 */
export class SessionCookie {
  readonly #secure: boolean;

  constructor(options: { secure: boolean }) {
    this.#secure = options.secure;
  }

  /** The session id the request's cookie carries, unless it has none or its signature is wrong. */
  read(request: FastifyRequest): string | undefined {
    const cookie = request.cookies[SESSION_COOKIE];
    if (!cookie) return undefined;
    const unsigned = request.unsignCookie(cookie);
    if (!unsigned.valid || !unsigned.value) return undefined;
    return unsigned.value;
  }

  write(reply: FastifyReply, sessionId: string): void {
    reply.setCookie(SESSION_COOKIE, sessionId, {
      signed: true,
      httpOnly: true,
      sameSite: 'lax',
      secure: this.#secure,
      path: '/oauth',
      maxAge: SESSION_LIFETIME_SECONDS,
    });
  }
}
