import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AuthorizationServer, EndpointResponse } from '../../../auth/oauth/authorization-server.ts';
import { OAUTH_SCOPE_NAMES } from '../../../domain/oauth-scopes.ts';
import { issuerOf } from '../../oauth/issuer.ts';
import { describeRoute } from '../../openapi/describe-route.ts';
import { revokeFormSchema, tokenFormSchema } from '../../schemas/oauth-forms.ts';
import { oauthErrorBodySchema } from '../../schemas/responses/error-bodies.ts';
import { authorizationServerMetadataSchema, tokenResponseSchema } from '../../schemas/responses/oauth.ts';
import type { AppResources } from '../../resources.ts';

/** The token endpoint, revocation (RFC 7009) and the server's metadata (RFC 8414). */
export function tokenEndpoints(
  app: FastifyInstance,
  resources: AppResources,
  deps: { server: AuthorizationServer },
) {
  const { server } = deps;

  app.post(
    '/oauth/token',
    describeRoute({
      operationId: 'issueToken',
      summary: 'Token endpoint',
      description:
        '`authorization_code` (with the PKCE `code_verifier`) and `refresh_token` grants; every app is a confidential client. A refresh returns the same refresh token with a new access token.',
      tags: ['oauth'],
      auth: 'oauth_client',
      form: tokenFormSchema,
      responses: {
        200: {
          description: 'The tokens (`Cache-Control: no-store`).',
          body: tokenResponseSchema,
        },
        400: {
          description:
            '`invalid_grant` (unknown, used or expired code, wrong or missing code_verifier, revoked refresh token), `invalid_client` (a wrong secret in the form), `invalid_request`, `invalid_scope`, `unsupported_grant_type`, `unauthorized_client`.',
          body: oauthErrorBodySchema,
        },
        401: {
          description: '`invalid_client`: no client secret, or a wrong one in HTTP Basic.',
          body: oauthErrorBodySchema,
          headers: { 'WWW-Authenticate': 'Basic realm="oauth"' },
        },
      },
    }),
    async (request, reply) =>
      send(
        reply,
        await server.token({ method: request.method, headers: request.headers, body: formOf(request.body) }),
      ),
  );

  app.post(
    '/oauth/revoke',
    describeRoute({
      operationId: 'revokeToken',
      summary: 'Revoke a token (RFC 7009)',
      description:
        "A refresh token ends its grant with every access token of it; an access token ends itself. Unknown tokens and other apps' tokens are answered 200 and left alone.",
      tags: ['oauth'],
      auth: 'oauth_client',
      form: revokeFormSchema,
      responses: {
        200: { description: 'Revoked (or nothing to revoke).' },
        400: { description: '`invalid_request`: no token.', body: oauthErrorBodySchema },
        401: {
          description: '`invalid_client`: client authentication failed.',
          body: oauthErrorBodySchema,
          headers: { 'WWW-Authenticate': 'Basic realm="oauth"' },
        },
      },
    }),
    async (request, reply) =>
      send(
        reply,
        await server.revoke({ method: request.method, headers: request.headers, body: formOf(request.body) }),
      ),
  );

  app.get(
    '/.well-known/oauth-authorization-server',
    describeRoute({
      operationId: 'getAuthorizationServerMetadata',
      summary: 'Authorization server metadata (RFC 8414)',
      tags: ['oauth'],
      auth: 'none',
      responses: {
        200: {
          description: 'The issuer, endpoints, scopes and methods (cacheable for an hour).',
          body: authorizationServerMetadataSchema,
        },
      },
    }),
    async (_request, reply) => {
      const issuer = issuerOf(resources.config, app);
      const clientAuthentication = ['client_secret_basic', 'client_secret_post'];
      return reply.header('cache-control', 'public, max-age=3600').send({
        issuer,
        authorization_endpoint: `${issuer}/oauth/authorize`,
        token_endpoint: `${issuer}/oauth/token`,
        revocation_endpoint: `${issuer}/oauth/revoke`,
        userinfo_endpoint: `${issuer}/api/oauth/userinfo`,
        scopes_supported: OAUTH_SCOPE_NAMES,
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: clientAuthentication,
        revocation_endpoint_auth_methods_supported: clientAuthentication,
        authorization_response_iss_parameter_supported: true,
      });
    },
  );
}

function formOf(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}

function send(reply: FastifyReply, response: EndpointResponse) {
  reply.status(response.status).headers(response.headers);
  return response.body === undefined ? reply.send() : reply.send(response.body);
}
