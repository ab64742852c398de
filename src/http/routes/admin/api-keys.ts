import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { API_KEY_USAGES } from '../../../domain/api-key.ts';
import { parseInput } from '../../parse.ts';
import type { AppResources } from '../../resources.ts';
import { describeAdminRoute } from './describe-admin-route.ts';
import { apiKeyCreatedSchema, apiKeyListSchema } from '../../schemas/responses/admin.ts';
import { notFoundUnless, workspaceBySlug } from './admin-workspace.ts';

/** The body of `POST …/api-keys` (also read by the admin CLI to type its flags). */
export const createApiKeySchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  agentIds: z.array(z.string().min(1)).max(1000).optional(),
  usage: z.enum(API_KEY_USAGES, { error: 'must be developer_api or internal' }).optional(),
  expiresAt: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).optional(),
});

type Params = { slug: string };

export function adminApiKeyRoutes(app: FastifyInstance, { repos, credentials }: AppResources): void {
  app.post<{ Params: Params }>(
    '/workspaces/:slug/api-keys',
    describeAdminRoute({
      operationId: 'createApiKey',
      summary: 'Create an API key',
      description: 'The key is shown once, in this answer; it is stored hashed.',
      body: createApiKeySchema,
      responses: { 201: { description: 'The key.', body: apiKeyCreatedSchema } },
      errors: ['not_found'],
    }),
    async (request, reply) => {
      const body = parseInput(createApiKeySchema, request.body);
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      const { apiKey, key } = await credentials.createApiKey(workspace, body);
      return reply.status(201).send({ id: apiKey.id, key });
    },
  );

  app.get<{ Params: Params }>(
    '/workspaces/:slug/api-keys',
    describeAdminRoute({
      operationId: 'listApiKeys',
      summary: 'List API keys',
      responses: { 200: { description: 'The keys (never the secrets).', body: apiKeyListSchema } },
      errors: ['not_found'],
    }),
    async (request) => {
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      return { apiKeys: await repos.apiKeys.listByWorkspace(workspace.id) };
    },
  );

  app.delete<{ Params: Params & { id: string } }>(
    '/workspaces/:slug/api-keys/:id',
    describeAdminRoute({
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      description: 'The key answers 401 from then on.',
      responses: { 204: { description: 'Revoked.' } },
      errors: ['not_found'],
    }),
    async (request, reply) => {
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      notFoundUnless(
        await repos.apiKeys.revoke(workspace.id, request.params.id),
        `active API key '${request.params.id}'`,
      );
      return reply.status(204).send();
    },
  );
}
