import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpToolRef } from '../../domain/tool-ref.ts';
import { objectInputSchema } from '../object-schema.ts';
import { failureMessage, type GuardedFetch, type ServerTool } from '../server-tool.ts';
import { callMcpTool } from './mcp-call.ts';
import { modelToolNames } from './tool-names.ts';
import { unavailableTool } from './unavailable-tool.ts';

export interface McpServerDeps {
  /** Every request of the session (initialize, list, calls, the closing DELETE) goes through it. */
  fetch: GuardedFetch;
  /** Aborts the open (connect and listing). */
  signal: AbortSignal;
  logger?: { warn(fields: object, message: string): void };
}

/** A remote MCP server's tools for one run; its session stays open until `close`. */
export interface McpServerTools {
  tools: ServerTool[];
  close(): Promise<void>;
}

const CLIENT_INFO = { name: 'agent-runs', version: '1.0.0' };
/** A server that pages its catalog without end is a failure, not a hang. */
const MAX_CATALOG_PAGES = 100;
/** How long closing waits for the session DELETE before dropping the connection anyway. */
const TERMINATE_WAIT_MS = 5_000;
const MAX_REASON_CHARS = 500;

/**
 * `mcp`: opens a Streamable HTTP session with the server and lists its whole
 * catalog. Each tool kept by `toolFilter` is exposed as `<name>_<tool>`. A
 * server that cannot be opened, for whatever reason (an abort of
 * `deps.signal` included), gives the single `<name>_unavailable` tool instead:
 * this never throws.
 */
export async function openMcpServer(ref: McpToolRef, deps: McpServerDeps): Promise<McpServerTools> {
  let transport: StreamableHTTPClientTransport | undefined;
  const client = new Client(CLIENT_INFO);
  try {
    transport = new StreamableHTTPClientTransport(new URL(ref.url), {
      fetch: deps.fetch,
      // The transport adds these to every request it makes, the session DELETE included.
      ...(ref.headers !== undefined && { requestInit: { headers: ref.headers } }),
    });
    await client.connect(transport, { signal: deps.signal });
    const listed = await listCatalog(client, deps.signal);
    const close = closeOnce(client, transport);
    return { tools: exposedTools(ref, listed, client), close };
  } catch (error) {
    if (transport !== undefined) await closeOnce(client, transport)();
    const reason = deps.signal.aborted ? failureMessage(deps.signal.reason) : openFailureReason(error);
    deps.logger?.warn({ mcpServer: ref.name, reason }, 'MCP server unavailable at run start');
    return { tools: [unavailableTool(ref.name, reason)], close: async () => {} };
  }
}

/** Every tool of the catalog, following `nextCursor` until the last page. */
async function listCatalog(client: Client, signal: AbortSignal): Promise<Tool[]> {
  const tools: Tool[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, { signal });
    tools.push(...page.tools);
    cursor = page.nextCursor;
    if (cursor !== undefined && (cursors.has(cursor) || cursors.size >= MAX_CATALOG_PAGES)) {
      throw new Error(`the tool listing did not end after ${cursors.size + 1} pages`);
    }
    if (cursor !== undefined) cursors.add(cursor);
  } while (cursor !== undefined);
  return tools;
}

function exposedTools(ref: McpToolRef, listed: readonly Tool[], client: Client): ServerTool[] {
  const allowed = ref.toolFilter === undefined ? undefined : new Set(ref.toolFilter);
  const kept = new Map<string, Tool>();
  for (const tool of listed) {
    if (allowed !== undefined && !allowed.has(tool.name)) continue;
    if (!kept.has(tool.name)) kept.set(tool.name, tool);
  }
  const names = modelToolNames(ref.name, [...kept.keys()]);
  return [...kept.values()].map((mcpTool) => {
    const name = names.get(mcpTool.name) ?? mcpTool.name;
    return {
      tool: {
        kind: 'mcp',
        name,
        description: mcpTool.description ?? mcpTool.title ?? mcpTool.annotations?.title ?? '',
        inputSchema: objectInputSchema(mcpTool.inputSchema),
        readOnly: mcpTool.annotations?.readOnlyHint === true,
        retain: false,
        callExtras: {},
      },
      handler: (args, context) =>
        callMcpTool(client, mcpTool.name, args, { signal: context.signal, fileStem: name }),
    };
  });
}

/** Ends the session once however often it is called: DELETE (errors ignored), then drop the connections. */
function closeOnce(client: Client, transport: StreamableHTTPClientTransport): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= (async () => {
      const waited = new AbortController();
      await Promise.race([
        transport.terminateSession().catch(() => {}),
        sleep(TERMINATE_WAIT_MS, undefined, { signal: waited.signal }).catch(() => {}),
      ]);
      waited.abort();
      // Aborts whatever is still in flight on the session, the DELETE included.
      await client.close().catch(() => {});
    })();
    return closing;
  };
}

/** Why opening failed, as the model and the logs read it: the error with its cause (a refused connection). */
function openFailureReason(error: unknown): string {
  const message = failureMessage(error);
  const cause = error instanceof Error && error.cause !== undefined ? failureMessage(error.cause) : undefined;
  const reason = cause === undefined || message.includes(cause) ? message : `${message}: ${cause}`;
  return reason.length <= MAX_REASON_CHARS ? reason : `${reason.slice(0, MAX_REASON_CHARS)}…`;
}
