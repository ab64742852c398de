import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AuthorizationServer, EndpointResponse } from '../../../auth/oauth/authorization-server.ts';
import { OAUTH_SCOPE_NAMES } from '../../../domain/oauth-scopes.ts';
import { issuerOf } from '../../oauth/issuer.ts';
import type { AppResources } from '../../resources.ts';

/** The token endpoint, revocation (RFC 7009) and the server's metadata (RFC 8414). */
export function tokenEndpoints(
  app: FastifyInstance,
  resources: AppResources,
  deps: { server: AuthorizationServer },
) {
  const { server } = deps;

  app.post('/oauth/token', async (request, reply) =>
    send(
      reply,
      await server.token({ method: request.method, headers: request.headers, body: formOf(request.body) }),
    ),
  );

  app.post('/oauth/revoke', async (request, reply) =>
    send(
      reply,
      await server.revoke({ method: request.method, headers: request.headers, body: formOf(request.body) }),
    ),
  );

  app.get('/.well-known/oauth-authorization-server', async (_request, reply) => {
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
  });
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
