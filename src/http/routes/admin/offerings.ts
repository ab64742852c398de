import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { DEFAULT_CONTEXT_WINDOW_TOKENS } from '../../../domain/model.ts';
import type { Offering } from '../../../domain/offering.ts';
import { parseInput } from '../../parse.ts';
import type { AppResources } from '../../resources.ts';
import { describeAdminRoute } from './describe-admin-route.ts';
import { createdIdSchema, offeringListSchema } from '../../schemas/responses/admin.ts';
import { apiFor, connectionFieldsSchema, modelFieldsSchema } from '../../schemas/model-connection.ts';
import { notFoundUnless } from './admin-workspace.ts';

/** The body of `POST /offerings` (also read by the admin CLI to type its flags). */
export const createOfferingSchema = z.strictObject({
  ...connectionFieldsSchema,
  ...modelFieldsSchema,
  isDefault: z.boolean().optional(),
});

/** What an operator sees of an offering: everything but the key itself. */
export function offeringView(offering: Offering) {
  const { apiKeySealed, ...rest } = offering;
  return { ...rest, hasApiKey: apiKeySealed !== null };
}

export function adminOfferingRoutes(app: FastifyInstance, { repos, secretBox, catalog }: AppResources): void {
  app.post(
    '/offerings',
    describeAdminRoute({
      operationId: 'createOffering',
      summary: 'Create a platform offering',
      description: 'A hosted model every workspace may use.',
      body: createOfferingSchema,
      responses: { 201: { description: 'The offering was created.', body: createdIdSchema } },
      errors: ['conflict'],
    }),
    async (request, reply) => {
      const body = parseInput(createOfferingSchema, request.body);
      const offering = await repos.offerings.create({
        provider: body.provider,
        api: apiFor(body.provider, body.api),
        baseUrl: body.baseUrl ?? null,
        apiKeySealed: body.apiKey ? secretBox.seal(body.apiKey) : null,
        vendorModelId: body.vendorModelId,
        label: body.label ?? body.vendorModelId,
        contextWindowTokens: body.contextWindowTokens ?? DEFAULT_CONTEXT_WINDOW_TOKENS,
        pricing: body.pricing ?? null,
        isDefault: body.isDefault ?? false,
      });
      catalog.invalidate();
      return reply.status(201).send({ id: offering.id });
    },
  );

  app.get(
    '/offerings',
    describeAdminRoute({
      operationId: 'listOfferings',
      summary: 'List platform offerings',
      responses: { 200: { description: 'Stored and builtin offerings.', body: offeringListSchema } },
    }),
    async () => ({ offerings: (await repos.offerings.list()).map(offeringView) }),
  );

  app.delete<{ Params: { id: string } }>(
    '/offerings/:id',
    describeAdminRoute({
      operationId: 'deleteOffering',
      summary: 'Delete a platform offering',
      responses: { 204: { description: 'Deleted.' } },
      errors: ['not_found'],
    }),
    async (request, reply) => {
      notFoundUnless(await repos.offerings.delete(request.params.id), `offering '${request.params.id}'`);
      catalog.invalidate();
      return reply.status(204).send();
    },
  );
}
