import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { InvalidRequestError } from '../../../domain/errors.ts';
import { DEFAULT_CONTEXT_WINDOW_TOKENS } from '../../../domain/model.ts';
import type { WorkspaceProvider } from '../../../domain/offering.ts';
import { parseInput } from '../../parse.ts';
import type { AppResources } from '../../resources.ts';
import { describeAdminRoute } from './describe-admin-route.ts';
import { createdIdSchema, providerListSchema } from '../../schemas/responses/admin.ts';
import { apiFor, connectionFieldsSchema, modelFieldsSchema } from '../../schemas/model-connection.ts';
import { notFoundUnless, workspaceBySlug } from './admin-workspace.ts';

/** The body of `POST …/providers` (also read by the admin CLI to type its flags). */
export const createProviderSchema = z.strictObject({
  ...connectionFieldsSchema,
  models: z.array(z.strictObject(modelFieldsSchema)).min(1, 'must list at least one model').max(500),
  defaultModel: z.string().min(1).optional(),
  isDefault: z.boolean().optional(),
});

type Params = { slug: string };

function providerView(provider: WorkspaceProvider) {
  const { apiKeySealed, ...rest } = provider;
  return { ...rest, hasApiKey: apiKeySealed !== null };
}

export function adminProviderRoutes(app: FastifyInstance, { repos, secretBox, catalog }: AppResources): void {
  app.post<{ Params: Params }>(
    '/workspaces/:slug/providers',
    describeAdminRoute({
      operationId: 'createProvider',
      summary: 'Connect a workspace provider',
      description: "The workspace's own key for a provider (source workspace_provider).",
      body: createProviderSchema,
      responses: { 201: { description: 'The provider was connected.', body: createdIdSchema } },
      errors: ['not_found', 'conflict'],
    }),
    async (request, reply) => {
      const body = parseInput(createProviderSchema, request.body);
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      const vendorIds = body.models.map((model) => model.vendorModelId);
      const duplicate = vendorIds.find((id, index) => vendorIds.indexOf(id) !== index);
      if (duplicate) throw new InvalidRequestError(`models: '${duplicate}' is listed twice`);
      const defaultModel = body.defaultModel ?? vendorIds[0] ?? '';
      if (!vendorIds.includes(defaultModel)) {
        throw new InvalidRequestError(`defaultModel: '${defaultModel}' is not one of the listed models`);
      }
      const provider = await repos.workspaceProviders.create({
        workspaceId: workspace.id,
        provider: body.provider,
        api: apiFor(body.provider, body.api),
        baseUrl: body.baseUrl ?? null,
        apiKeySealed: body.apiKey ? secretBox.seal(body.apiKey) : null,
        models: body.models.map((model) => ({
          vendorModelId: model.vendorModelId,
          label: model.label ?? model.vendorModelId,
          contextWindowTokens: model.contextWindowTokens ?? DEFAULT_CONTEXT_WINDOW_TOKENS,
          pricing: model.pricing ?? null,
        })),
        defaultModel,
        isDefault: body.isDefault ?? false,
      });
      catalog.invalidate();
      return reply.status(201).send({ id: provider.id });
    },
  );

  app.get<{ Params: Params }>(
    '/workspaces/:slug/providers',
    describeAdminRoute({
      operationId: 'listProviders',
      summary: 'List workspace providers',
      responses: { 200: { description: 'The providers (never their keys).', body: providerListSchema } },
      errors: ['not_found'],
    }),
    async (request) => {
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      return { providers: (await repos.workspaceProviders.listByWorkspace(workspace.id)).map(providerView) };
    },
  );

  app.delete<{ Params: Params & { id: string } }>(
    '/workspaces/:slug/providers/:id',
    describeAdminRoute({
      operationId: 'deleteProvider',
      summary: 'Delete a workspace provider',
      responses: { 204: { description: 'Deleted.' } },
      errors: ['not_found'],
    }),
    async (request, reply) => {
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      notFoundUnless(
        await repos.workspaceProviders.delete(workspace.id, request.params.id),
        `provider '${request.params.id}'`,
      );
      catalog.invalidate();
      return reply.status(204).send();
    },
  );
}
