import type { FastifyInstance } from 'fastify';
import type { AppResources } from '../../resources.ts';
import { principalOf } from '../../principal-of.ts';
import { describeRoute } from '../../openapi/describe-route.ts';
import { modelListSchema } from '../../schemas/responses/models.ts';

export function modelRoutes(app: FastifyInstance, { catalog }: AppResources): void {
  app.get(
    '/models',
    describeRoute({
      operationId: 'listModels',
      summary: 'List the models of the workspace',
      description: "Each entry's `id` is the value to pass back as `modelId`.",
      tags: ['models'],
      scopes: ['models:read'],
      bucket: 'transport',
      responses: { 200: { description: 'The catalog and the default model.', body: modelListSchema } },
    }),
    async (request) => catalog.list(principalOf(request).workspace.id),
  );
}
