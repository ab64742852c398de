import { InvalidRequestError } from '../domain/errors.ts';
import { assertNever } from '../domain/assert-never.ts';
import { isHostToolName, reservedToolNameMessage } from '../domain/host-tools.ts';
import type { ToolRef } from '../domain/tool-ref.ts';
import type {
  OpenedRunTools,
  PluginRecordStore,
  RunTool,
  RunToolScope,
  ServerToolHandler,
  ToolCatalog,
  WorkspaceToolStore,
} from '../engine/ports.ts';
import { a2aLocalTool } from './a2a-local/a2a-local-tool.ts';
import { localTool } from './local/local-tool.ts';
import { mcpLocalTools } from './mcp-local/mcp-local-tools.ts';
import type { PluginRegistry } from './plugins/plugin-registry.ts';
import type { GuardedFetch, ServerTool } from './server-tool.ts';
import { httpTool } from './svc/http-tool.ts';

export interface RunToolCatalogDeps {
  workspaceTools: WorkspaceToolStore;
  plugins: PluginRegistry;
  pluginRecords: PluginRecordStore;
  /** Every server-side fetch of a tool goes through the SSRF guard. */
  fetch: GuardedFetch;
}

interface Expanded {
  tools: RunTool[];
  handlers: Array<[string, ServerToolHandler]>;
  close?: () => Promise<void>;
}

/**
 * Resolves a run's tool refs (already validated at the edge) into model-facing
 * tools, one module per kind. Two refs exposing the same name collide, and a
 * name reserved for a host tool is refused: a bad request at creation; at run
 * start (when an MCP server's catalog is known) such a tool is left out with a
 * warning.
 */
export class RunToolCatalog implements ToolCatalog {
  readonly #deps: RunToolCatalogDeps;

  constructor(deps: RunToolCatalogDeps) {
    this.#deps = deps;
  }

  async check(workspaceId: string, refs: readonly ToolRef[]): Promise<void> {
    const names = new Set<string>();
    for (const [index, ref] of refs.entries()) {
      for (const name of await this.#namesOf(workspaceId, ref, index)) {
        // Also catches names the edge cannot see: a workspace tool row or an agent stored earlier.
        if (isHostToolName(name))
          throw new InvalidRequestError(`tools.${index}: ${reservedToolNameMessage(name)}`);
        if (names.has(name)) {
          throw new InvalidRequestError(
            `tools.${index}: a tool named '${name}' is already declared; tool names must be unique`,
          );
        }
        names.add(name);
      }
    }
  }

  async open(refs: readonly ToolRef[], scope: RunToolScope): Promise<OpenedRunTools> {
    const expanded = await Promise.all(refs.map((ref) => this.#expand(ref, scope)));
    const tools = new Map<string, RunTool>();
    const handlers = new Map<string, ServerToolHandler>();
    for (const { tools: resolved, handlers: served } of expanded) {
      for (const tool of resolved) {
        // A name known only now (an MCP server's catalog) may still take a host tool's.
        if (isHostToolName(tool.name)) {
          scope.logger.warn({ tool: tool.name }, 'a tool with a name reserved for the service is left out');
          continue;
        }
        if (tools.has(tool.name)) {
          scope.logger.warn(
            { tool: tool.name },
            'a tool with this name is already declared; the later one is left out',
          );
          continue;
        }
        tools.set(tool.name, tool);
        const handler = served.find(([name]) => name === tool.name)?.[1];
        if (handler) handlers.set(tool.name, handler);
      }
    }
    return {
      tools,
      handlers,
      close: async () => {
        await Promise.allSettled(expanded.map(async (entry) => entry.close?.()));
      },
    };
  }

  /** The names a ref exposes, known before the run starts (an MCP server's tools share its prefix). */
  async #namesOf(workspaceId: string, ref: ToolRef, index: number): Promise<string[]> {
    switch (ref.kind) {
      case 'local':
      case 'a2a_local':
      case 'a2a':
        return [ref.name];
      case 'mcp_local':
        return mcpLocalTools(ref).map((tool) => tool.name);
      case 'mcp':
        return [];
      case 'svc': {
        const row = await this.#deps.workspaceTools.findById(workspaceId, ref.id);
        if (!row) throw new InvalidRequestError(`tools.${index}: no workspace tool with id '${ref.id}'`);
        return [row.name];
      }
      case 'svc_plugin':
        if (!this.#deps.plugins.has(ref.name)) {
          throw new InvalidRequestError(
            `tools.${index}: no plugin tool named '${ref.name}'; available: ${this.#deps.plugins.names().join(', ')}`,
          );
        }
        return [ref.name];
      default:
        return assertNever(ref);
    }
  }

  async #expand(ref: ToolRef, scope: RunToolScope): Promise<Expanded> {
    const { fetch } = this.#deps;
    switch (ref.kind) {
      case 'local':
        return { tools: [localTool(ref)], handlers: [] };
      case 'a2a_local':
        return { tools: [a2aLocalTool(ref)], handlers: [] };
      case 'mcp_local':
        return { tools: mcpLocalTools(ref), handlers: [] };
      // The MCP and A2A SDKs load with the first run that uses them, not with the service.
      case 'a2a': {
        const { a2aTool } = await import('./a2a/a2a-tool.ts');
        return served([a2aTool(ref, { fetch, logger: scope.logger })]);
      }
      case 'mcp': {
        const { openMcpServer } = await import('./mcp/mcp-server-tools.ts');
        const server = await openMcpServer(ref, { fetch, signal: scope.signal, logger: scope.logger });
        return { ...served(server.tools), close: () => server.close() };
      }
      case 'svc': {
        const row = await this.#deps.workspaceTools.findById(scope.workspaceId, ref.id);
        // Deleted since the run was created: the model is told when it calls it.
        if (!row) return served([missingTool(ref.id)]);
        return served([httpTool(row, { fetch })]);
      }
      case 'svc_plugin':
        return served([
          this.#deps.plugins.serverTool(ref.name, { fetch, records: this.#deps.pluginRecords }),
        ]);
      default:
        return assertNever(ref);
    }
  }
}

function served(tools: readonly ServerTool[]): Expanded {
  return {
    tools: tools.map((entry) => entry.tool),
    handlers: tools.map((entry) => [entry.tool.name, entry.handler]),
  };
}

function missingTool(id: string): ServerTool {
  const text = `the workspace tool '${id}' no longer exists`;
  return {
    tool: {
      kind: 'svc',
      name: `svc_${id.replace(/[^a-zA-Z0-9_]/g, '_')}`.slice(0, 64),
      description: text,
      inputSchema: { type: 'object', properties: {} },
      readOnly: false,
      retain: false,
      callExtras: {},
    },
    handler: async () => ({ ok: false, text }),
  };
}
