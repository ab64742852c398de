import type { FastifyReply } from 'fastify';

/**
 * Headers of every HTML page the service serves: never framed (clickjacking of consent), no MIME
 * sniffing, no referrer, and a policy that lets the page load nothing but its inline styles.
 * `formAction` adds a `form-action` directive: not on the OAuth pages, whose forms end in a redirect
 * to the app, which browsers check against it.
 */
export function pageSecurityHeaders(
  reply: FastifyReply,
  options: { formAction?: string } = {},
): FastifyReply {
  const formAction = options.formAction === undefined ? '' : `; form-action ${options.formAction}`;
  return reply
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header(
      'content-security-policy',
      `default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'${formAction}`,
    );
}

/**
 * The console's policy: its own scripts, styles and API only (`'self'`), nothing inline, no plugin,
 * no `<base>`, never framed; its forms are handled by script and never submitted.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of the console's page and assets. */
export function consoleSecurityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', CONSOLE_CONTENT_SECURITY_POLICY);
}
