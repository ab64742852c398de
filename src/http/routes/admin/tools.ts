import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../../parse.ts';
import type { AppResources } from '../../resources.ts';
import { headersSchema, httpUrlSchema, jsonObjectSchema, toolNameSchema } from '../../schemas/common.ts';
import { notFoundUnless, workspaceBySlug } from './admin-workspace.ts';

/** The body of `POST …/tools` (also read by the admin CLI to type its flags). */
export const createToolSchema = z.strictObject({
  name: toolNameSchema,
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
  app.post<{ Params: Params }>('/workspaces/:slug/tools', async (request, reply) => {
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
  });

  app.get<{ Params: Params }>('/workspaces/:slug/tools', async (request) => {
    const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
    // Header values often carry credentials: list their names only.
    const tools = await repos.workspaceTools.listByWorkspace(workspace.id);
    return {
      tools: tools.map((tool) => ({
        ...tool,
        http: { ...tool.http, headers: Object.keys(tool.http.headers) },
      })),
    };
  });

  app.delete<{ Params: Params & { id: string } }>('/workspaces/:slug/tools/:id', async (request, reply) => {
    const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
    notFoundUnless(
      await repos.workspaceTools.delete(workspace.id, request.params.id),
      `tool '${request.params.id}'`,
    );
    return reply.status(204).send();
  });
}
