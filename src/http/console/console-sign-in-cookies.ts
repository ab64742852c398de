import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  HANDOFF_LIFETIME_SECONDS,
  PENDING_SIGN_IN_SECONDS,
  type PendingConsoleSignIn,
} from '../../auth/console/console-sign-in.ts';

const PENDING_COOKIE = 'svc_console_sign_in';
const HANDOFF_COOKIE = 'svc_console_handoff';
const PENDING_PATH = '/console';
const HANDOFF_PATH = '/console/oauth/handoff';

/**
 * The two cookies of the console's OAuth sign-in, both signed and `HttpOnly` (`Secure` over HTTPS):
 * the started sign-in (its state and PKCE verifier, `SameSite=Lax` as it comes back on the redirect
 * from the consent page, ten minutes, read by the callback only) and the browser's binding to its
 * handoff (`SameSite=Strict`, sent only to the redemption route, 60 s). Neither is readable by script.
 */
export class ConsoleSignInCookies {
  readonly #secure: boolean;

  constructor(options: { secure: boolean }) {
    this.#secure = options.secure;
  }

  writePending(reply: FastifyReply, pending: PendingConsoleSignIn): void {
    reply.setCookie(PENDING_COOKIE, JSON.stringify(pending), {
      signed: true,
      httpOnly: true,
      sameSite: 'lax',
      secure: this.#secure,
      path: PENDING_PATH,
      maxAge: PENDING_SIGN_IN_SECONDS,
    });
  }

  /** The started sign-in this browser carries, unless it has none or it was tampered with. */
  readPending(request: FastifyRequest): PendingConsoleSignIn | undefined {
    const value = this.#unsigned(request, PENDING_COOKIE);
    if (value === undefined) return undefined;
    try {
      const parsed = JSON.parse(value) as Partial<PendingConsoleSignIn>;
      const { state, verifier, clientId, workspaceSlug } = parsed;
      if (
        typeof state !== 'string' ||
        typeof verifier !== 'string' ||
        typeof clientId !== 'string' ||
        typeof workspaceSlug !== 'string'
      ) {
        return undefined;
      }
      return { state, verifier, clientId, workspaceSlug };
    } catch {
      return undefined;
    }
  }

  clearPending(reply: FastifyReply): void {
    reply.clearCookie(PENDING_COOKIE, { path: PENDING_PATH });
  }

  writeHandoffBinding(reply: FastifyReply, binding: string): void {
    reply.setCookie(HANDOFF_COOKIE, binding, {
      signed: true,
      httpOnly: true,
      sameSite: 'strict',
      secure: this.#secure,
      path: HANDOFF_PATH,
      maxAge: HANDOFF_LIFETIME_SECONDS,
    });
  }

  readHandoffBinding(request: FastifyRequest): string | undefined {
    return this.#unsigned(request, HANDOFF_COOKIE);
  }

  clearHandoffBinding(reply: FastifyReply): void {
    reply.clearCookie(HANDOFF_COOKIE, { path: HANDOFF_PATH });
  }

  #unsigned(request: FastifyRequest, name: string): string | undefined {
    const cookie = request.cookies[name];
    if (!cookie) return undefined;
    const unsigned = request.unsignCookie(cookie);
    return unsigned.valid && unsigned.value ? unsigned.value : undefined;
  }
}
