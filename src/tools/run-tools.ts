import { InvalidRequestError } from '../domain/errors.ts';
import { assertNever } from '../domain/assert-never.ts';
import type { ToolRef } from '../domain/tool-ref.ts';
import type { RunTool, RunTools, ToolCatalog } from '../engine/ports.ts';
import { a2aLocalTool } from './a2a-local/a2a-local-tool.ts';
import { localTool } from './local/local-tool.ts';
import { mcpLocalTools } from './mcp-local/mcp-local-tools.ts';

/**
 * Resolves a run's tool refs (already validated at the edge) into model-facing
 * tools, one module per kind. Two refs exposing the same name collide, which is a bad request.
 */
export const runToolCatalog: ToolCatalog = {
  resolve(refs: readonly ToolRef[]): RunTools {
    const tools = new Map<string, RunTool>();
    refs.forEach((ref, index) => {
      for (const resolved of expand(ref, index)) {
        if (tools.has(resolved.name)) {
          throw new InvalidRequestError(
            `tools.${index}: a tool named '${resolved.name}' is already declared; tool names must be unique`,
          );
        }
        tools.set(resolved.name, resolved);
      }
    });
    return tools;
  },
};

function expand(ref: ToolRef, index: number): RunTool[] {
  switch (ref.kind) {
    case 'local':
      return [localTool(ref)];
    case 'a2a_local':
      return [a2aLocalTool(ref)];
    case 'mcp_local':
      return mcpLocalTools(ref);
    case 'svc':
    case 'svc_plugin':
    case 'a2a':
    case 'mcp':
      throw new InvalidRequestError(
        `tools.${index}: kind '${ref.kind}' is server-resolved and not available on this server yet; use a client-resolved kind (local, a2a_local, mcp_local)`,
      );
    default:
      return assertNever(ref);
  }
}
