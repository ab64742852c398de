/** The MCP server's JSON-RPC 2.0 envelopes (Streamable HTTP; the messages are MCP's own). */
import { z } from 'zod';
import { openObject } from './open-object.ts';

const jsonRpcId = z.union([z.string(), z.number().int()]);

export const mcpJsonRpcMessageSchema = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: jsonRpcId.optional().describe('Absent on notifications.'),
    method: z
      .string()
      .describe(
        'initialize, notifications/initialized, ping, tools/list, tools/call, notifications/cancelled, …',
      ),
    params: openObject({}).optional().describe('MCP parameters of the method.'),
  })
  .meta({ id: 'McpJsonRpcMessage' });

export const mcpJsonRpcResponseSchema = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: jsonRpcId.nullable(),
    result: openObject({}).optional().describe("The method's result in MCP shapes."),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .meta({
    id: 'McpJsonRpcResponse',
    description:
      'A JSON-RPC response; for tools/call a `text/event-stream` whose `data:` frames carry progress notifications, then the response.',
  });
