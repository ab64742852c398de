import { jsonSchema, tool, type JSONSchema7, type ToolSet } from 'ai';
import type { ToolRef } from '../domain/agent.ts';
import { InvalidRequestError } from '../domain/errors.ts';
import { a2aLocalTool, type A2aLocalToolRef } from './a2a-local/a2a-local-tool.ts';
import type { ClientTool } from './client-tool.ts';
import { localTool, type LocalToolRef } from './local/local-tool.ts';
import { mcpLocalTools, type McpLocalToolRef } from './mcp-local/mcp-local-tools.ts';

/** Kinds the service executes itself; they arrive with their own capability. */
const SERVER_KINDS = new Set(['svc', 'svc_plugin', 'a2a', 'mcp']);

/** The tools of one run, by the name the model calls. */
export type RunTools = ReadonlyMap<string, ClientTool>;

/**
 * Resolves a run's tool refs (already validated at the edge) into model-facing
 * tools. Two refs exposing the same name collide, which is a bad request.
 */
export function resolveRunTools(refs: readonly ToolRef[]): RunTools {
  const tools = new Map<string, ClientTool>();
  refs.forEach((ref, index) => {
    if (SERVER_KINDS.has(ref.kind)) {
      throw new InvalidRequestError(
        `tools.${index}: kind '${ref.kind}' is server-resolved and not available on this server yet; use a client-resolved kind (local, a2a_local, mcp_local)`,
      );
    }
    for (const resolved of expand(ref)) {
      if (tools.has(resolved.name)) {
        throw new InvalidRequestError(
          `tools.${index}: a tool named '${resolved.name}' is already declared; tool names must be unique`,
        );
      }
      tools.set(resolved.name, resolved);
    }
  });
  return tools;
}

function expand(ref: ToolRef): ClientTool[] {
  switch (ref.kind) {
    case 'local':
      return [localTool(ref as unknown as LocalToolRef)];
    case 'a2a_local':
      return [a2aLocalTool(ref as unknown as A2aLocalToolRef)];
    case 'mcp_local':
      return mcpLocalTools(ref as unknown as McpLocalToolRef);
    default:
      throw new InvalidRequestError(`tools: unknown kind '${ref.kind}'`);
  }
}

/** What the model is told about a tool: plain data, so a model call can carry it to a model thread. */
export type ModelToolDefinition = Pick<ClientTool, 'name' | 'description' | 'inputSchema'>;

export function modelToolDefinitions(tools: RunTools): ModelToolDefinition[] | undefined {
  if (tools.size === 0) return undefined;
  return [...tools.values()].map(({ name, description, inputSchema }) => ({
    name,
    description,
    inputSchema,
  }));
}

/** The AI SDK tool set: definitions only, no `execute`, so every call comes back to our loop. */
export function modelToolSet(definitions: readonly ModelToolDefinition[]): ToolSet {
  const set: ToolSet = {};
  for (const definition of definitions) {
    set[definition.name] = tool({
      description: definition.description,
      inputSchema: jsonSchema(definition.inputSchema as JSONSchema7),
    });
  }
  return set;
}
