import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../../parse.ts';
import type { AppResources } from '../../resources.ts';
import { describeAdminRoute } from './describe-admin-route.ts';
import { createdIdSchema, workspaceToolListSchema } from '../../schemas/responses/admin.ts';
import {
  declaredToolNameSchema,
  headersSchema,
  httpUrlSchema,
  jsonObjectSchema,
} from '../../schemas/common.ts';
import { notFoundUnless, workspaceBySlug } from './admin-workspace.ts';

/** The body of `POST …/tools` (also read by the admin CLI to type its flags). */
export const createToolSchema = z.strictObject({
  name: declaredToolNameSchema,
  description: z.string().max(8000).optional(),
  parameters: jsonObjectSchema.optional(),
  http: z.strictObject({
    url: httpUrlSchema,
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional(),
    headers: headersSchema.optional(),
  }),
});

type Params = { slug: string };

export function adminToolRoutes(app: FastifyInstance, { repos }: AppResources): void {
  app.post<{ Params: Params }>(
    '/workspaces/:slug/tools',
    describeAdminRoute({
      operationId: 'createWorkspaceTool',
      summary: 'Create a workspace tool',
      description: 'An HTTP endpoint runs use as { kind: "svc", id }.',
      body: createToolSchema,
      responses: { 201: { description: 'The tool was created.', body: createdIdSchema } },
      errors: ['not_found', 'conflict'],
    }),
    async (request, reply) => {
      const body = parseInput(createToolSchema, request.body);
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      const tool = await repos.workspaceTools.create({
        workspaceId: workspace.id,
        name: body.name,
        description: body.description ?? '',
        parameters: body.parameters ?? { type: 'object', properties: {} },
        http: { url: body.http.url, method: body.http.method ?? 'POST', headers: body.http.headers ?? {} },
      });
      return reply.status(201).send({ id: tool.id });
    },
  );

  app.get<{ Params: Params }>(
    '/workspaces/:slug/tools',
    describeAdminRoute({
      operationId: 'listWorkspaceTools',
      summary: 'List workspace tools',
      responses: { 200: { description: 'The tools (header names only).', body: workspaceToolListSchema } },
      errors: ['not_found'],
    }),
    async (request) => {
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      // Header values often carry credentials: list their names only.
      const tools = await repos.workspaceTools.listByWorkspace(workspace.id);
      return {
        tools: tools.map((tool) => ({
          ...tool,
          http: { ...tool.http, headers: Object.keys(tool.http.headers) },
        })),
      };
    },
  );

  app.delete<{ Params: Params & { id: string } }>(
    '/workspaces/:slug/tools/:id',
    describeAdminRoute({
      operationId: 'deleteWorkspaceTool',
      summary: 'Delete a workspace tool',
      responses: { 204: { description: 'Deleted.' } },
      errors: ['not_found'],
    }),
    async (request, reply) => {
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      notFoundUnless(
        await repos.workspaceTools.delete(workspace.id, request.params.id),
        `tool '${request.params.id}'`,
      );
      return reply.status(204).send();
    },
  );
}
