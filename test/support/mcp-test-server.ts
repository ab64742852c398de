import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  isInitializeRequest,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { eventually } from './waits.ts';

/** One HTTP request the server received. */
export interface SeenRequest {
  httpMethod: string;
  /** The JSON-RPC method a POST carried. */
  rpcMethod: string | undefined;
  headers: IncomingHttpHeaders;
}

/** A call of the `slow` tool, which only ends when the client cancels it. */
export interface SlowCall {
  requestId: string | number;
  /** Its handler started. */
  started: boolean;
  /** The handler's signal fired: the client's `notifications/cancelled` arrived. */
  cancelled: boolean;
  /** The HTTP request that carried the call was closed. */
  connectionClosed: boolean;
}

export interface McpTestServer {
  url: string;
  requests: SeenRequest[];
  /** The session ids the client ended with a DELETE. */
  deletedSessions: string[];
  slowCalls: SlowCall[];
  close(): Promise<void>;
}

/** How many tools one `tools/list` page carries: the catalog needs several pages. */
export const PAGE_SIZE = 3;
export const LONG_TOOL_NAME = `report_${'x'.repeat(70)}`;
export const ECHO_SCHEMA = {
  type: 'object' as const,
  properties: { text: { type: 'string', minLength: 1 } },
  required: ['text'],
  additionalProperties: false,
};
/** The 1×1 transparent PNG. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
export const BLOB_BYTES = Buffer.from('embedded blob bytes');

export const TEST_TOOLS: Tool[] = [
  { name: 'echo', description: 'Echoes its text.', inputSchema: ECHO_SCHEMA },
  { name: 'fail', description: 'Always fails.', inputSchema: { type: 'object' } },
  { name: 'media', description: 'Returns files.', inputSchema: { type: 'object' } },
  { name: 'structured', description: 'Returns structured content only.', inputSchema: { type: 'object' } },
  { name: 'slow', description: 'Runs until cancelled.', inputSchema: { type: 'object' } },
  {
    name: 'lookup',
    title: 'Look things up',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: true },
  },
  { name: 'weird.name-1', description: 'A name with dots and dashes.', inputSchema: { type: 'object' } },
  { name: LONG_TOOL_NAME, description: 'A name too long once prefixed.', inputSchema: { type: 'object' } },
  { name: 'a.b', description: 'Sanitizes like a-b.', inputSchema: { type: 'object' } },
  { name: 'a-b', description: 'Sanitizes like a.b.', inputSchema: { type: 'object' } },
];

/**
 * A stateful Streamable HTTP MCP server on 127.0.0.1 built on the SDK's low-level `Server` (so its
 * `tools/list` can page): records every request, the session DELETEs and the fate of `slow` calls.
 */
export async function startMcpTestServer(): Promise<McpTestServer> {
  const requests: SeenRequest[] = [];
  const deletedSessions: string[] = [];
  const slowCalls: SlowCall[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const rpcMethod = isRecord(body) && typeof body.method === 'string' ? body.method : undefined;
    requests.push({ httpMethod: req.method ?? '', rpcMethod, headers: req.headers });
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (transport === undefined) {
      if (sessionId !== undefined || !isInitializeRequest(body)) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('no such session');
        return;
      }
      transport = await openSession();
    }
    if (req.method === 'DELETE' && typeof sessionId === 'string') deletedSessions.push(sessionId);
    if (
      rpcMethod === 'tools/call' &&
      isRecord(body) &&
      isRecord(body.params) &&
      body.params.name === 'slow'
    ) {
      const call: SlowCall = {
        requestId: body.id as string | number,
        started: false,
        cancelled: false,
        connectionClosed: false,
      };
      slowCalls.push(call);
      res.on('close', () => (call.connectionClosed = true));
    }
    await transport.handleRequest(req, res, body);
  }

  async function openSession(): Promise<StreamableHTTPServerTransport> {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await mcpServer(slowCalls).connect(transport);
    return transport;
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    deletedSessions,
    slowCalls,
    close: async () => {
      await Promise.allSettled([...sessions.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function mcpServer(slowCalls: SlowCall[]): Server {
  const server = new Server({ name: 'mcp-test-server', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const start = Number(request.params?.cursor ?? '0');
    const end = start + PAGE_SIZE;
    return {
      tools: TEST_TOOLS.slice(start, end),
      ...(end < TEST_TOOLS.length && { nextCursor: String(end) }),
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    switch (name) {
      case 'echo':
        return { content: [{ type: 'text', text: `echo: ${String(args?.text)}` }] };
      case 'fail':
        return { isError: true, content: [{ type: 'text', text: 'the tool failed on purpose' }] };
      case 'media':
        return { content: mediaContent() };
      case 'structured':
        return { content: [], structuredContent: { answer: 42 } };
      case 'slow': {
        const call = slowCalls.find((entry) => entry.requestId === extra.requestId);
        if (call !== undefined) call.started = true;
        await new Promise((resolve) => {
          if (extra.signal.aborted) resolve(undefined);
          extra.signal.addEventListener('abort', resolve, { once: true });
        });
        if (call !== undefined) call.cancelled = true;
        return { content: [{ type: 'text', text: 'cancelled' }] };
      }
      default:
        return { content: [{ type: 'text', text: `called ${name}` }] };
    }
  });
  return server;
}

function mediaContent(): CallToolResult['content'] {
  return [
    { type: 'text', text: 'here are the files' },
    { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
    { type: 'audio', data: Buffer.from('RIFF....WAVE').toString('base64'), mimeType: 'audio/wav' },
    {
      type: 'resource',
      resource: {
        uri: 'file:///exports/data.bin',
        mimeType: 'application/octet-stream',
        blob: BLOB_BYTES.toString('base64'),
      },
    },
    {
      type: 'resource',
      resource: { uri: 'memo://notes/1', mimeType: 'text/plain', text: 'an embedded note' },
    },
    {
      type: 'resource_link',
      uri: 'https://127.0.0.1:9/reports/q3.pdf',
      name: 'q3',
      mimeType: 'application/pdf',
    },
    { type: 'resource_link', uri: 'file:///local/only.txt', name: 'only' },
  ];
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The published `server-everything` in its Streamable HTTP mode, as a child process. */
export interface EverythingServer {
  url: string;
  stop(): Promise<void>;
}

/** Starts `server-everything` on a free loopback port and waits until it answers HTTP. */
export async function startEverythingServer(): Promise<EverythingServer> {
  const port = await freePort();
  const entry = fileURLToPath(import.meta.resolve('@modelcontextprotocol/server-everything/dist/index.js'));
  const child = spawn(process.execPath, [entry, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const url = `http://127.0.0.1:${port}/mcp`;
  try {
    await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`server-everything exited (${child.exitCode}): ${stderr}`);
      try {
        // Without a session it answers 400: any answer means it is listening.
        const response = await fetch(url);
        await response.body?.cancel();
        return true;
      } catch {
        return false;
      }
    }, 'server-everything answers on its port');
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}

/** A loopback port nothing listens on (right now). */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
