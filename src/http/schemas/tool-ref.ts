import { z } from 'zod';
import {
  declaredToolNameSchema,
  headersSchema,
  httpUrlSchema,
  jsonObjectSchema,
  toolNameSchema,
} from './common.ts';

const svcRef = z.strictObject({ kind: z.literal('svc'), id: z.string().min(1) });
const svcPluginRef = z.strictObject({ kind: z.literal('svc_plugin'), name: declaredToolNameSchema });

const localRef = z.object({
  kind: z.literal('local'),
  name: declaredToolNameSchema,
  description: z.string().optional(),
  parameters: z.unknown().optional(),
  outputSchema: z.unknown().optional(),
  longRunning: z.boolean().optional(),
  readOnly: z.boolean().optional(),
  retain: z.boolean().optional(),
});

const a2aRef = z.object({
  kind: z.literal('a2a'),
  name: declaredToolNameSchema,
  description: z.string().optional(),
  agentCardUrl: httpUrlSchema,
  headers: headersSchema.optional(),
  contextId: z.string().min(1).optional(),
});

const a2aLocalRef = z.object({
  kind: z.literal('a2a_local'),
  name: declaredToolNameSchema,
  description: z.string().optional(),
  agentCard: jsonObjectSchema,
});

const mcpRef = z.object({
  kind: z.literal('mcp'),
  name: toolNameSchema,
  url: httpUrlSchema,
  headers: headersSchema.optional(),
  toolFilter: z.array(z.string().min(1)).optional(),
});

const mcpLocalTool = z.looseObject({
  name: declaredToolNameSchema,
  description: z.string().optional(),
  inputSchema: z.unknown().optional(),
  annotations: z.unknown().optional(),
});

const mcpLocalRef = z.object({
  kind: z.literal('mcp_local'),
  name: toolNameSchema,
  serverInfo: z.looseObject({ name: z.string(), version: z.string().optional() }).optional(),
  tools: z.array(mcpLocalTool).min(1, 'must list 1 to 64 tools').max(64, 'must list 1 to 64 tools'),
});

/** One entry of a spec's `tools`, discriminated by `kind`. */
export const toolRefSchema = z
  .discriminatedUnion('kind', [svcRef, svcPluginRef, localRef, a2aRef, a2aLocalRef, mcpRef, mcpLocalRef], {
    error: 'kind must be one of svc, svc_plugin, local, a2a, a2a_local, mcp, mcp_local',
  })
  .meta({ id: 'ToolRef' });

export type ToolRefInput = z.output<typeof toolRefSchema>;
export const toolRefsSchema = z.array(toolRefSchema);
