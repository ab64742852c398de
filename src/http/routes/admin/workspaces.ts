import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { withoutUndefined } from '../../../domain/without-undefined.ts';
import { DEFAULT_MAX_CONCURRENT_RUNS } from '../../../domain/workspace.ts';
import { parseInput } from '../../parse.ts';
import type { AppResources } from '../../resources.ts';
import { describeAdminRoute } from './describe-admin-route.ts';
import {
  createdWithSlugSchema,
  workspaceListSchema,
  workspaceSchema,
} from '../../schemas/responses/admin.ts';
import { slugSchema } from '../../schemas/common.ts';
import { notFoundUnless, workspaceBySlug } from './admin-workspace.ts';

const perMinute = z.number().int('must be a whole number').min(1).max(1_000_000);
const rateLimitsSchema = z.strictObject({
  runStart: perMinute.optional(),
  lifecycle: perMinute.optional(),
  otherMutations: perMinute.optional(),
  transport: perMinute.optional(),
});
const featuresSchema = z.strictObject({ apiKeys: z.boolean().optional(), oauthApps: z.boolean().optional() });
const maxConcurrentRunsSchema = z.number().int('must be a whole number').min(1).max(100_000);

/** The body of `POST /workspaces` (also read by the admin CLI to type its flags). */
export const createWorkspaceSchema = z.strictObject({
  slug: slugSchema,
  name: z.string().trim().min(1).max(200).optional(),
  features: featuresSchema.optional(),
  rateLimits: rateLimitsSchema.optional(),
  maxConcurrentRuns: maxConcurrentRunsSchema.optional(),
});
/** The body of `PATCH /workspaces/{slug}`. */
export const updateWorkspaceSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  features: featuresSchema.optional(),
  rateLimits: rateLimitsSchema.optional(),
  maxConcurrentRuns: maxConcurrentRunsSchema.optional(),
});

export function adminWorkspaceRoutes(app: FastifyInstance, { repos, catalog }: AppResources): void {
  app.post(
    '/workspaces',
    describeAdminRoute({
      operationId: 'createWorkspace',
      summary: 'Create a workspace',
      body: createWorkspaceSchema,
      responses: { 201: { description: 'The workspace was created.', body: createdWithSlugSchema } },
      errors: ['conflict'],
    }),
    async (request, reply) => {
      const body = parseInput(createWorkspaceSchema, request.body);
      const workspace = await repos.workspaces.create({
        slug: body.slug,
        name: body.name ?? body.slug,
        features: { apiKeys: body.features?.apiKeys ?? true, oauthApps: body.features?.oauthApps ?? true },
        rateLimits: withoutUndefined(body.rateLimits ?? {}),
        maxConcurrentRuns: body.maxConcurrentRuns ?? DEFAULT_MAX_CONCURRENT_RUNS,
      });
      return reply.status(201).send({ id: workspace.id, slug: workspace.slug });
    },
  );

  app.get(
    '/workspaces',
    describeAdminRoute({
      operationId: 'listWorkspaces',
      summary: 'List workspaces',
      responses: { 200: { description: 'Every workspace.', body: workspaceListSchema } },
    }),
    async () => ({ workspaces: await repos.workspaces.list() }),
  );

  app.get<{ Params: { slug: string } }>(
    '/workspaces/:slug',
    describeAdminRoute({
      operationId: 'getWorkspace',
      summary: 'Read a workspace',
      responses: { 200: { description: 'The workspace.', body: workspaceSchema } },
      errors: ['not_found'],
    }),
    async (request) => workspaceBySlug(repos.workspaces, request.params.slug),
  );

  app.patch<{ Params: { slug: string } }>(
    '/workspaces/:slug',
    describeAdminRoute({
      operationId: 'updateWorkspace',
      summary: 'Update a workspace',
      description: "A raised maxConcurrentRuns admits waiting runs at the workers' next dispatch sweep.",
      body: updateWorkspaceSchema,
      responses: { 200: { description: 'The updated workspace.', body: workspaceSchema } },
      errors: ['not_found'],
    }),
    async (request) => {
      const body = parseInput(updateWorkspaceSchema, request.body);
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      // A raised limit admits waiting runs at the workers' next dispatch sweep (within seconds): this
      // process may have no worker (the admin CLI), so it does not admit them itself.
      return repos.workspaces.update(workspace.id, {
        ...(body.name !== undefined && { name: body.name }),
        ...(body.maxConcurrentRuns !== undefined && { maxConcurrentRuns: body.maxConcurrentRuns }),
        ...(body.features !== undefined && {
          features: { ...workspace.features, ...withoutUndefined(body.features) },
        }),
        ...(body.rateLimits !== undefined && {
          rateLimits: { ...workspace.rateLimits, ...withoutUndefined(body.rateLimits) },
        }),
      });
    },
  );

  app.delete<{ Params: { slug: string } }>(
    '/workspaces/:slug',
    describeAdminRoute({
      operationId: 'deleteWorkspace',
      summary: 'Delete a workspace',
      responses: { 204: { description: 'Deleted.' } },
      errors: ['not_found'],
    }),
    async (request, reply) => {
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      notFoundUnless(await repos.workspaces.delete(workspace.id), `workspace '${request.params.slug}'`);
      catalog.invalidate();
      return reply.status(204).send();
    },
  );
}
