import { z } from 'zod';
import type { ToolRef } from '../../domain/tool-ref.ts';
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
  description: z.string().exactOptional(),
  parameters: z.unknown().exactOptional(),
  outputSchema: z.unknown().exactOptional(),
  longRunning: z.boolean().exactOptional(),
  readOnly: z.boolean().exactOptional(),
  retain: z.boolean().exactOptional(),
});

const a2aRef = z.object({
  kind: z.literal('a2a'),
  name: declaredToolNameSchema,
  description: z.string().exactOptional(),
  agentCardUrl: httpUrlSchema,
  headers: headersSchema.exactOptional(),
  contextId: z.string().min(1).exactOptional(),
});

const a2aLocalRef = z.object({
  kind: z.literal('a2a_local'),
  name: declaredToolNameSchema,
  description: z.string().exactOptional(),
  agentCard: jsonObjectSchema,
});

const mcpRef = z.object({
  kind: z.literal('mcp'),
  name: toolNameSchema,
  url: httpUrlSchema,
  headers: headersSchema.exactOptional(),
  toolFilter: z.array(z.string().min(1)).exactOptional(),
});

const mcpLocalTool = z.looseObject({
  name: declaredToolNameSchema,
  description: z.string().exactOptional(),
  inputSchema: z.unknown().exactOptional(),
  annotations: z.unknown().exactOptional(),
});

const mcpLocalRef = z.object({
  kind: z.literal('mcp_local'),
  name: toolNameSchema,
  serverInfo: z.looseObject({ name: z.string(), version: z.string().exactOptional() }).exactOptional(),
  tools: z.array(mcpLocalTool).min(1, 'must list 1 to 64 tools').max(64, 'must list 1 to 64 tools'),
});

/** One entry of a spec's `tools`, discriminated by `kind`. */
export const toolRefSchema = z
  .discriminatedUnion('kind', [svcRef, svcPluginRef, localRef, a2aRef, a2aLocalRef, mcpRef, mcpLocalRef], {
    error: 'kind must be one of svc, svc_plugin, local, a2a, a2a_local, mcp, mcp_local',
  })
  .meta({ id: 'ToolRef' }) satisfies z.ZodType<ToolRef>;

export const toolRefsSchema = z.array(toolRefSchema);
