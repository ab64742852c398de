import type { FastifyInstance } from 'fastify';
import { rateLimit } from '../../plugins/rate-limit.ts';
import { describeRoute } from '../../openapi/describe-route.ts';
import { credentialErrorBodySchema } from '../../schemas/responses/error-bodies.ts';
import { userInfoSchema } from '../../schemas/responses/oauth.ts';
import { authenticateScope } from '../../plugins/workspace-auth.ts';
import { principalOf } from '../../principal-of.ts';
import type { AppResources } from '../../resources.ts';

/**
 * `GET /api/oauth/userinfo` (scope `svc.identity:read`): who signed in and the workspace slug to call.
 * An API key identifies no person: it gets its workspace with `sub` and `email` null.
 */
export async function userinfoRoute(app: FastifyInstance, options: { resources: AppResources }) {
  const { repos, rateCounters } = options.resources;
  authenticateScope(app, repos, { checkSlug: false });
  app.addHook('onRequest', rateLimit({ counters: rateCounters }));
  app.get(
    '/api/oauth/userinfo',
    describeRoute({
      operationId: 'getUserInfo',
      summary: 'Who the credential belongs to',
      description:
        'Discovers the workspace slug to call after sign-in. An API key identifies no person: `sub` and `email` are null.',
      tags: ['identity'],
      scopes: ['svc.identity:read'],
      bucket: 'transport',
      responses: {
        200: { description: 'The user and workspace.', body: userInfoSchema },
        401: {
          description:
            '- `Unauthorized`: no credential was sent\n- `Invalid API key | Invalid access token`: the credential matches no record, is expired or revoked, or its user was deleted',
          body: credentialErrorBodySchema,
          headers: { 'WWW-Authenticate': 'Bearer challenge (RFC 6750).' },
        },
      },
    }),
    async (request, reply) => {
      const principal = principalOf(request);
      const workspace = { workspaceId: principal.workspace.id, workspaceSlug: principal.workspace.slug };
      reply.header('cache-control', 'no-store');
      // An API key and a client-credentials token (which never holds this scope) identify no person.
      if (principal.kind === 'api_key' || principal.grant === null)
        return { sub: null, email: null, ...workspace };
      const user = await repos.oauth.findUser(principal.workspace.id, principal.grant.userId);
      if (!user)
        return reply
          .status(401)
          .send({ error: 'Invalid access token', code: 'unauthorized', message: 'the user was deleted' });
      return { sub: user.id, email: user.email, name: user.name, ...workspace };
    },
  );
}
