/** The hosted A2A endpoint's cards and JSON-RPC 2.0 envelopes (A2A v0.3 shapes, and 1.0 with `A2A-Version: 1.0`). */
import { z } from 'zod';
import { openObject } from './open-object.ts';
import { modelInfoSchema, tokenUsageSchema, turnsSchema } from './usage.ts';

const textModes = z.array(z.string());

const supportedInterfaces = z
  .array(
    z.object({
      url: z.string(),
      protocolBinding: z.literal('JSONRPC'),
      protocolVersion: z.enum(['1.0', '0.3']),
    }),
  )
  .describe('Both interfaces of the endpoint: JSON-RPC in A2A 1.0, then in 0.3, at the same URL.');

const v03AgentCardSchema = z
  .object({
    protocolVersion: z.string(),
    name: z.string(),
    description: z.string(),
    url: z.string().describe("The agent's JSON-RPC endpoint."),
    preferredTransport: z.literal('JSONRPC'),
    supportedInterfaces,
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
  .meta({
    id: 'A2aAgentCardV03',
    description: "A workspace agent's A2A v0.3 Agent Card (a request without `A2A-Version: 1.0`).",
  });

const v1AgentCardSchema = openObject({
  name: z.string(),
  description: z.string(),
  supportedInterfaces,
  version: z.string(),
  capabilities: z.object({ streaming: z.boolean(), pushNotifications: z.boolean() }),
  defaultInputModes: textModes,
  defaultOutputModes: textModes,
}).meta({
  id: 'A2aAgentCardV1',
  description:
    "A workspace agent's A2A 1.0 Agent Card (a request with `A2A-Version: 1.0`): also `skills`, `securitySchemes` and `securityRequirements`, in A2A 1.0 JSON.",
});

export const a2aAgentCardSchema = z
  .union([v03AgentCardSchema, v1AgentCardSchema])
  .meta({ id: 'A2aAgentCard', description: 'The v0.3 card, or the 1.0 card with `A2A-Version: 1.0`.' });

const jsonRpcId = z.union([z.string(), z.number().int(), z.null()]);

export const a2aJsonRpcRequestSchema = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: jsonRpcId.optional(),
    method: z
      .string()
      .describe(
        'message/send, message/stream, tasks/get, tasks/cancel or tasks/resubscribe; with `A2A-Version: 1.0`: SendMessage, SendStreamingMessage, GetTask, CancelTask or SubscribeToTask.',
      ),
    params: openObject({}).optional().describe('The parameters of the method, in A2A v0.3 (or 1.0) shapes.'),
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
      .describe(
        "The method's result in A2A v0.3 shapes; in 1.0, SendMessage answers `{ message }` or `{ task }` (the message's `metadata.svc` likewise).",
      ),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .meta({ id: 'A2aJsonRpcResponse', description: 'Failures are JSON-RPC errors in a 200 answer.' });
