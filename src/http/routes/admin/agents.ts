import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ToolRef } from '../../../domain/tool-ref.ts';
import { InvalidRequestError } from '../../../domain/errors.ts';
import { slugify } from '../../../domain/slug.ts';
import { parseInput } from '../../parse.ts';
import type { AppResources } from '../../resources.ts';
import { describeAdminRoute } from './describe-admin-route.ts';
import { agentListSchema, createdWithSlugSchema } from '../../schemas/responses/admin.ts';
import { reasoningLevelSchema, slugSchema } from '../../schemas/common.ts';
import { outputSchemaSchema } from '../../schemas/run-controls.ts';
import { toolRefsSchema } from '../../schemas/tool-ref.ts';
import { notFoundUnless, workspaceBySlug } from './admin-workspace.ts';

/** An agent's `description` limit (operator contract). */
export const AGENT_DESCRIPTION_MAX_CHARS = 1000;

/** The body of `POST …/agents` (also read by the admin CLI to type its flags). */
export const createAgentSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  slug: slugSchema.optional(),
  description: z
    .string()
    .max(AGENT_DESCRIPTION_MAX_CHARS, `must be at most ${AGENT_DESCRIPTION_MAX_CHARS} characters`)
    .optional()
    .describe('What the agent does, shown to MCP clients and on A2A cards.'),
  systemPrompt: z.string().min(1, 'must not be empty').max(200_000),
  modelId: z.string().min(1).optional(),
  useWorkspaceDefaultModel: z.boolean().optional(),
  reasoningLevel: reasoningLevelSchema.optional(),
  outputSchema: outputSchemaSchema
    .optional()
    .describe("The default outputSchema of the agent's runs (a run's own outputSchema wins)."),
  tools: toolRefsSchema.optional(),
  system: z.boolean().optional(),
});

type Params = { slug: string };

export function adminAgentRoutes(app: FastifyInstance, { repos, catalog }: AppResources): void {
  app.post<{ Params: Params }>(
    '/workspaces/:slug/agents',
    describeAdminRoute({
      operationId: 'createAgent',
      summary: 'Create an agent',
      description: 'A persisted agent, run with agentId.',
      body: createAgentSchema,
      responses: { 201: { description: 'The agent was created.', body: createdWithSlugSchema } },
      errors: ['not_found', 'invalid_model', 'conflict'],
    }),
    async (request, reply) => {
      const body = parseInput(createAgentSchema, request.body);
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      if (body.modelId !== undefined && body.useWorkspaceDefaultModel) {
        throw new InvalidRequestError('modelId: leave it out when useWorkspaceDefaultModel is true');
      }
      // Fail now, not at the first run, when the configured model cannot be resolved.
      if (body.modelId !== undefined) await catalog.resolve(workspace.id, body.modelId);
      const agent = await repos.agents.create({
        workspaceId: workspace.id,
        slug: body.slug ?? slugify(body.name),
        name: body.name,
        systemPrompt: body.systemPrompt,
        modelId: body.modelId ?? null,
        useWorkspaceDefaultModel: body.useWorkspaceDefaultModel ?? body.modelId === undefined,
        reasoningLevel: body.reasoningLevel ?? null,
        tools: body.tools ?? [],
        isSystem: body.system ?? false,
        description: body.description ?? null,
        outputSchema: body.outputSchema ?? null,
      });
      return reply.status(201).send({ id: agent.id, slug: agent.slug });
    },
  );

  app.get<{ Params: Params }>(
    '/workspaces/:slug/agents',
    describeAdminRoute({
      operationId: 'listAgents',
      summary: 'List agents',
      responses: { 200: { description: 'The agents.', body: agentListSchema } },
      errors: ['not_found'],
    }),
    async (request) => {
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      const agents = await repos.agents.listByWorkspace(workspace.id);
      return { agents: agents.map((agent) => ({ ...agent, tools: agent.tools.map(withHeaderNamesOnly) })) };
    },
  );

  app.delete<{ Params: Params & { id: string } }>(
    '/workspaces/:slug/agents/:id',
    describeAdminRoute({
      operationId: 'deleteAgent',
      summary: 'Delete an agent',
      responses: { 204: { description: 'Deleted.' } },
      errors: ['not_found'],
    }),
    async (request, reply) => {
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      notFoundUnless(
        await repos.agents.delete(workspace.id, request.params.id),
        `agent '${request.params.id}'`,
      );
      return reply.status(204).send();
    },
  );
}

/**
 * Tool refs as lists show them: header names without their values (they typically hold the remote
 * server's credentials), as the workspace tools list does.
 */
function withHeaderNamesOnly(ref: ToolRef): Record<string, unknown> {
  if (!('headers' in ref) || ref.headers === undefined) return { ...ref };
  return { ...ref, headers: Object.keys(ref.headers) };
}
