/** The hosted A2A endpoint's card and JSON-RPC 2.0 envelopes (A2A v0.3 shapes). */
import { z } from 'zod';
import { openObject } from './open-object.ts';
import { modelInfoSchema, tokenUsageSchema, turnsSchema } from './usage.ts';

const textModes = z.array(z.string());

export const a2aAgentCardSchema = z
  .object({
    protocolVersion: z.string(),
    name: z.string(),
    description: z.string(),
    url: z.string().describe("The agent's JSON-RPC endpoint."),
    preferredTransport: z.literal('JSONRPC'),
    version: z.string(),
    capabilities: z.object({ streaming: z.boolean(), pushNotifications: z.boolean() }),
    defaultInputModes: textModes,
    defaultOutputModes: textModes,
    skills: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        description: z.string(),
        tags: z.array(z.string()),
        inputModes: textModes,
        outputModes: textModes,
      }),
    ),
    securitySchemes: z.record(z.string(), z.record(z.string(), z.string())),
    security: z.array(z.record(z.string(), z.array(z.string()))),
  })
  .meta({ id: 'A2aAgentCard', description: "A workspace agent's A2A v0.3 Agent Card." });

const jsonRpcId = z.union([z.string(), z.number().int(), z.null()]);

export const a2aJsonRpcRequestSchema = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: jsonRpcId.optional(),
    method: z
      .string()
      .describe('message/send, message/stream, tasks/get, tasks/cancel or tasks/resubscribe.'),
    params: openObject({}).optional().describe('A2A v0.3 parameters of the method.'),
  })
  .meta({ id: 'A2aJsonRpcRequest' });

export const a2aUsageMetadataSchema = z
  .object({ tokens: tokenUsageSchema, turns: turnsSchema, model: modelInfoSchema })
  .meta({
    id: 'A2aUsage',
    description:
      "`result.metadata.svc`: the run's usage triple; omitted (not zeroed) when a runner reports none.",
  });

export const a2aJsonRpcResponseSchema = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: jsonRpcId,
    result: openObject({
      kind: z.string().optional().describe('`message` (with `messageId`, `role`, `parts`) or `task`.'),
      metadata: openObject({ svc: a2aUsageMetadataSchema.optional() }).optional(),
    })
      .optional()
      .describe("The method's result in A2A v0.3 shapes."),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .meta({ id: 'A2aJsonRpcResponse', description: 'Failures are JSON-RPC errors in a 200 answer.' });
