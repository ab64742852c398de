import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {
  AuthorizationServer,
  EndpointRequest,
  EndpointResponse,
} from '../../../auth/oauth/authorization-server.ts';
import { isJsonObject } from '../../../domain/json-object.ts';
import { OAUTH_SCOPE_NAMES } from '../../../domain/oauth-scopes.ts';
import { issuerOf } from '../../oauth/issuer.ts';
import { TOKEN_BUCKET, TOKEN_REQUESTS_PER_CLIENT, tokenRateLimit } from '../../oauth/token-rate-limit.ts';
import { describeRoute } from '../../openapi/describe-route.ts';
import { revokeFormSchema, tokenFormSchema } from '../../schemas/oauth-forms.ts';
import { oauthErrorBodySchema } from '../../schemas/responses/error-bodies.ts';
import { authorizationServerMetadataSchema, tokenResponseSchema } from '../../schemas/responses/oauth.ts';
import type { AppResources } from '../../resources.ts';

/** The token endpoint (with its per-client rate limit), revocation (RFC 7009) and the server's metadata (RFC 8414). */
export function tokenEndpoints(
  app: FastifyInstance,
  resources: AppResources,
  deps: { server: AuthorizationServer },
) {
  const { server } = deps;

  const meterTokenRequest = tokenRateLimit({ counters: resources.rateCounters });

  app.post(
    '/oauth/token',
    describeRoute({
      operationId: 'issueToken',
      summary: 'Token endpoint',
      description: [
        'Every app is a confidential client: authenticate with the client secret, by HTTP Basic (`client_secret_basic`) or in the form (`client_secret_post`), one of the two.',
        '- `authorization_code`, with the PKCE `code_verifier` and the `redirect_uri` of the authorization request: an access token and the grant\u2019s refresh token. A code is single-use: a second use is `invalid_grant` and revokes the tokens of the first.',
        '- `refresh_token`: a new access token and the same refresh token (refresh tokens do not rotate); `scope` may narrow, never widen.',
        '- `client_credentials`, with `scope`: an access token of the app itself, with no end user and no refresh token; the requested scopes minus `svc.identity:read`; every non-system agent.',
        `Each client may make ${TOKEN_REQUESTS_PER_CLIENT} token requests a minute (counted once it is authenticated).`,
      ].join('\n\n'),
      tags: ['oauth'],
      auth: 'oauth_client',
      bucket: { ownLimit: TOKEN_BUCKET, per: 'OAuth client' },
      form: tokenFormSchema,
      responses: {
        200: {
          description: 'The tokens (`Cache-Control: no-store`).',
          body: tokenResponseSchema,
          headers: TOKEN_RATE_LIMIT_HEADERS,
        },
        400: {
          description:
            '- `invalid_grant`: unknown, used or expired code (a used one also revokes what it issued), wrong or missing code_verifier, a `redirect_uri` other than the authorization request\u2019s, revoked refresh token\n- `invalid_client`: the client secret was sent in the form and client authentication failed (unknown client or wrong secret)\n- `invalid_request`: not a form, a missing parameter, or HTTP Basic and a form secret together\n- `invalid_scope`: a refresh asking for more than was granted; client credentials without a scope other than `svc.identity:read`\n- `unsupported_grant_type`\n- `unauthorized_client`: a grant type the app may not use (password), or client credentials in a workspace whose plan lacks OAuth applications',
          body: oauthErrorBodySchema,
        },
        401: {
          description:
            '`invalid_client`: client authentication through the `Authorization` header failed (not Basic, unknown client or wrong secret), or no client secret was sent.',
          body: oauthErrorBodySchema,
          headers: { 'WWW-Authenticate': 'Basic realm="oauth"' },
        },
        429: {
          description: `\`rate_limit_exceeded\`: the client made ${TOKEN_REQUESTS_PER_CLIENT} token requests this minute.`,
          body: oauthErrorBodySchema,
          headers: { 'Retry-After': 'Seconds until the window resets.', ...TOKEN_RATE_LIMIT_HEADERS },
        },
      },
    }),
    async (request, reply) => {
      const endpointRequest = toEndpointRequest(request);
      const authenticated = await server.authenticateClient(endpointRequest);
      if (!authenticated.ok) return send(reply, authenticated.response);
      const metering = await meterTokenRequest(authenticated.client.record.app.id, request.log);
      reply.headers(metering.headers);
      if (metering.refused) return send(reply, metering.refused);
      return send(reply, await server.token(endpointRequest, authenticated.client));
    },
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
      bucket: { unmetered: 'revocation only ends tokens, and only of the authenticated client' },
      form: revokeFormSchema,
      responses: {
        200: { description: 'Revoked (or nothing to revoke).' },
        400: {
          description:
            '- `invalid_request`: no token, or HTTP Basic and a form secret together\n- `invalid_client`: the client secret was sent in the form and client authentication failed',
          body: oauthErrorBodySchema,
        },
        401: {
          description:
            '`invalid_client`: client authentication through the `Authorization` header failed, or no client secret was sent.',
          body: oauthErrorBodySchema,
          headers: { 'WWW-Authenticate': 'Basic realm="oauth"' },
        },
      },
    }),
    async (request, reply) => {
      const endpointRequest = toEndpointRequest(request);
      const authenticated = await server.authenticateClient(endpointRequest);
      if (!authenticated.ok) return send(reply, authenticated.response);
      return send(reply, await server.revoke(endpointRequest, authenticated.client));
    },
  );

  app.get(
    '/.well-known/oauth-authorization-server',
    describeRoute({
      operationId: 'getAuthorizationServerMetadata',
      summary: 'Authorization server metadata (RFC 8414)',
      tags: ['oauth'],
      auth: 'none',
      bucket: { unmetered: 'public, cacheable server metadata' },
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
        grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: clientAuthentication,
        revocation_endpoint_auth_methods_supported: clientAuthentication,
        authorization_response_iss_parameter_supported: true,
      });
    },
  );
}

const TOKEN_RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': `The client's maximum per minute (${TOKEN_REQUESTS_PER_CLIENT}).`,
  'X-RateLimit-Remaining': 'Requests left in the current window.',
  'X-RateLimit-Reset': 'When the window resets (Unix seconds).',
  'X-RateLimit-Bucket': '`oauth_token`.',
};

function toEndpointRequest(request: FastifyRequest): EndpointRequest {
  return { method: request.method, headers: request.headers, body: formOf(request.body) };
}

function formOf(body: unknown): Record<string, unknown> {
  return isJsonObject(body) ? body : {};
}

function send(reply: FastifyReply, response: EndpointResponse) {
  reply.status(response.status).headers(response.headers);
  return response.body === undefined ? reply.send() : reply.send(response.body);
}
