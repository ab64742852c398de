import type { IOType } from 'node:child_process';
import type { Stream } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Implementation, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { LocalToolCall } from '../tools/local-tool-call.ts';
import type { ToolAnswer } from '../tools/tool-answer.ts';
import type { LocalToolContext, ToolBridge } from '../tools/tool-bridge.ts';
import { assertToolName, type McpLocalToolEntry, type McpLocalToolRef } from '../tools/tool-refs.ts';
import { mcpCallAnswer } from './mcp-call-answer.ts';
import { modelFacingToolNames } from './mcp-tool-names.ts';

/** The service takes 1 to 64 tools per `mcp_local` ref. */
const MAX_TOOLS = 64;
/** As long as the service waits for a local result by default (5 minutes). */
const DEFAULT_CALL_TIMEOUT_MS = 5 * 60_000;
const CLIENT_INFO: Implementation = { name: '@agent-runs/client', version: '0.1.0' };

export interface McpLocalBridgeOptions {
  /** The ref's `name`: the server label calls come back with as `mcpServer` (`[a-zA-Z0-9_]{1,64}`). */
  name: string;
  /** Only these MCP tools (by their own names) are offered; all of them when omitted. */
  tools?: readonly string[];
  /** How long one `tools/call` may take (progress notifications extend it); 5 minutes by default. */
  callTimeoutMs?: number;
  /** Close the MCP client with the bridge (default true). */
  closeClient?: boolean;
}

export interface McpStdioBridgeOptions extends Omit<McpLocalBridgeOptions, 'closeClient'> {
  command: string;
  args?: string[];
  /** Added to the SDK's safe default environment (PATH, HOME, …). */
  env?: Record<string, string>;
  cwd?: string;
  /** The server's stderr: inherited by default. */
  stderr?: IOType | Stream | number;
}

/**
 * Serves an `mcp_local` ref from an MCP server only this client reaches: lists the server's tools
 * (every page), offers them under names the service accepts, and runs each `local_tool_call` for
 * them with `tools/call`, turning the MCP result into the tool result.
 */
export class McpLocalBridge implements ToolBridge {
  readonly kind = 'mcp_local';
  readonly name: string;
  /** The connected MCP client (for anything else the server offers). */
  readonly client: Client;
  readonly #options: McpLocalBridgeOptions;
  #ref: McpLocalToolRef;
  /** Model-facing name → the MCP tool's own name. */
  #mcpNames: Map<string, string>;

  private constructor(client: Client, options: McpLocalBridgeOptions, tools: readonly Tool[]) {
    this.name = options.name;
    this.client = client;
    this.#options = options;
    const { ref, mcpNames } = catalog(options.name, client.getServerVersion(), tools);
    this.#ref = ref;
    this.#mcpNames = mcpNames;
  }

  /** Starts the server as a child process speaking MCP over stdio, connects and lists its tools. */
  static async stdio(options: McpStdioBridgeOptions): Promise<McpLocalBridge> {
    assertToolName(options.name, 'mcp_local server name');
    const transport = new StdioClientTransport({
      command: options.command,
      ...(options.args && { args: options.args }),
      ...(options.env && { env: options.env }),
      ...(options.cwd !== undefined && { cwd: options.cwd }),
      ...(options.stderr !== undefined && { stderr: options.stderr }),
    });
    const client = new Client(CLIENT_INFO);
    try {
      await client.connect(transport);
      return await McpLocalBridge.fromClient(client, options);
    } catch (error) {
      await client.close().catch(() => {});
      throw error;
    }
  }

  /** A bridge over any connected MCP client (any transport). */
  static async fromClient(client: Client, options: McpLocalBridgeOptions): Promise<McpLocalBridge> {
    assertToolName(options.name, 'mcp_local server name');
    return new McpLocalBridge(client, options, await listTools(client, options.tools));
  }

  /** The `mcp_local` ref for the spec's `tools`. */
  toolRef(): McpLocalToolRef {
    return this.#ref;
  }

  /** Lists the server's tools again (send the new `toolRef()` with the next session message). */
  async refresh(): Promise<McpLocalToolRef> {
    const { ref, mcpNames } = catalog(
      this.name,
      this.client.getServerVersion(),
      await listTools(this.client, this.#options.tools),
    );
    this.#ref = ref;
    this.#mcpNames = mcpNames;
    return ref;
  }

  serves(call: LocalToolCall): boolean {
    return call.mcpServer === undefined && this.#mcpNames.has(call.name);
  }

  async call(call: LocalToolCall, context: LocalToolContext): Promise<ToolAnswer> {
    const listed = call.mcpToolName ?? call.name;
    const mcpName = this.#mcpNames.get(listed);
    if (mcpName === undefined) {
      return {
        error: `the MCP server '${this.name}' has no tool '${listed}' (its catalog may have changed)`,
      };
    }
    const result = await this.client.callTool({ name: mcpName, arguments: call.args }, undefined, {
      signal: context.signal,
      timeout: this.#options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
    });
    return mcpCallAnswer(result, listed);
  }

  /** Closes the MCP client; over stdio that ends the server process. */
  async close(): Promise<void> {
    if (this.#options.closeClient ?? true) await this.client.close();
  }
}

async function listTools(client: Client, only: readonly string[] | undefined): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const offered = only === undefined ? tools : tools.filter((tool) => only.includes(tool.name));
  if (offered.length === 0 || offered.length > MAX_TOOLS) {
    throw new RangeError(
      `an mcp_local ref takes 1 to ${MAX_TOOLS} tools; the server offers ${offered.length}` +
        (offered.length > MAX_TOOLS ? ': choose some with the `tools` option' : ''),
    );
  }
  return offered;
}

function catalog(
  name: string,
  serverInfo: Implementation | undefined,
  tools: readonly Tool[],
): { ref: McpLocalToolRef; mcpNames: Map<string, string> } {
  const names = modelFacingToolNames(tools.map((tool) => tool.name));
  const mcpNames = new Map<string, string>();
  const entries = tools.map((tool, index): McpLocalToolEntry => {
    const modelName = names[index] ?? tool.name;
    mcpNames.set(modelName, tool.name);
    // The verbatim MCP entry (unknown fields pass through), under a name the service accepts.
    return { ...(tool as McpLocalToolEntry), name: modelName };
  });
  return {
    ref: {
      kind: 'mcp_local',
      name,
      ...(serverInfo !== undefined && { serverInfo: { ...serverInfo } }),
      tools: entries,
    },
    mcpNames,
  };
}
