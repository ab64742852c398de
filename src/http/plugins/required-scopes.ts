import type { FastifyReply } from 'fastify';
import { missingScopes, type OAuthTokenPrincipal } from '../../auth/principal.ts';
import type { OAuthScope } from '../../domain/oauth-scopes.ts';

/**
 * Answers `403 insufficient_scope` when the access token lacks one of the route's scopes: `required` is
 * the scope (one-scope routes) or the list (routes needing several), and `WWW-Authenticate` names them
 * (RFC 6750 §3.1). A route that declares no scopes is closed to access tokens. Undefined when allowed.
 */
export function sendMissingScopes(
  reply: FastifyReply,
  principal: OAuthTokenPrincipal,
  required: readonly OAuthScope[] | undefined,
): FastifyReply | undefined {
  if (required === undefined) {
    return reply.status(403).send({
      error: 'forbidden',
      code: 'forbidden',
      message: 'this route is not available to OAuth access tokens',
    });
  }
  // An empty list marks a route for API keys only (extensions: "API keys only").
  if (required.length === 0) {
    return reply.status(403).send({
      error: 'insufficient_scope',
      required: 'api_key',
      message: 'this route takes an API key; OAuth access tokens are refused',
    });
  }
  const missing = missingScopes(principal, required);
  if (missing.length === 0) return undefined;
  const scope = required.join(' ');
  return reply
    .status(403)
    .header('www-authenticate', `Bearer error="insufficient_scope", scope="${scope}"`)
    .send({
      error: 'insufficient_scope',
      required: required.length === 1 ? required[0] : [...required],
      message: `the access token lacks the scope${missing.length === 1 ? '' : 's'} ${missing.join(', ')} that this route requires`,
    });
}

/** Route options declaring the scopes an access token needs (all of them). */
export function requiresScopes(...scopes: OAuthScope[]): { config: { scopes: readonly OAuthScope[] } } {
  return { config: { scopes } };
}
