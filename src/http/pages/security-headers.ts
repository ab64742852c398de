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
