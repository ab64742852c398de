import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, afterEach, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { LocalToolDispatcher, McpLocalBridge, type RunEvent } from '@agent-runs/client';
import { eventually, withCap, WAIT_CAP_MS } from '../support/waits.ts';
import { ECHO_MODEL, startClientFixture, type ClientFixture } from './client-fixture.ts';

const EVERYTHING = fileURLToPath(
  import.meta.resolve('@modelcontextprotocol/server-everything/dist/index.js'),
);
const TOOL_NAME = /^[a-zA-Z0-9_]{1,64}$/;
const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const PNG_BYTES = Buffer.from(PNG_1X1, 'base64').byteLength;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `server-everything` as a child process over stdio, bridged as `everything`. */
function everythingBridge(): Promise<McpLocalBridge> {
  return McpLocalBridge.stdio({
    name: 'everything',
    command: process.execPath,
    args: [EVERYTHING, 'stdio'],
    stderr: 'ignore',
  });
}

/**
 * A real MCP server built on the SDK's low-level `Server` (so `tools/list` pages two tools at a
 * time), connected to a client in memory.
 */
async function pagingServerClient(tools: Tool[]): Promise<{ client: Client; calls: string[] }> {
  const calls: string[] = [];
  const server = new Server({ name: 'paging-server', version: '3.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const start = Number(request.params?.cursor ?? '0');
    const end = start + 2;
    return { tools: tools.slice(start, end), ...(end < tools.length && { nextCursor: String(end) }) };
  });
  server.setRequestHandler(CallToolRequestSchema, (request): CallToolResult => {
    const { name, arguments: args } = request.params;
    calls.push(name);
    switch (name) {
      case 'fail':
        return { isError: true, content: [{ type: 'text', text: 'the tool failed on purpose' }] };
      case 'media':
        return {
          content: [
            { type: 'text', text: 'here is a picture' },
            { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
            { type: 'image', data: 'AAAA', mimeType: 'image/x-unknown' },
            { type: 'resource', resource: { uri: 'memo://notes/1', mimeType: 'text/plain', text: 'a note' } },
            { type: 'resource_link', uri: 'file:///reports/q3.pdf', name: 'q3', mimeType: 'application/pdf' },
          ],
        };
      case 'structured':
        return { content: [], structuredContent: { answer: 42 } };
      default:
        return { content: [{ type: 'text', text: `${name} got ${JSON.stringify(args ?? {})}` }] };
    }
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return { client, calls };
}

const PAGING_TOOLS: Tool[] = [
  {
    name: 'echo',
    description: 'Echoes.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: { readOnlyHint: true },
    title: 'Echo tool',
  },
  { name: 'fail', inputSchema: { type: 'object' } },
  { name: 'media', inputSchema: { type: 'object' } },
  { name: 'structured', inputSchema: { type: 'object' } },
  { name: 'a.b', inputSchema: { type: 'object' } },
  { name: 'a-b', inputSchema: { type: 'object' } },
];

describe('McpLocalBridge', () => {
  let fixture: ClientFixture;
  const opened: Array<{ close(): Promise<void> }> = [];

  before(async () => {
    fixture = await startClientFixture('mcp-local');
  });
  afterEach(async () => {
    await Promise.allSettled(opened.splice(0).map((item) => item.close()));
  });
  after(() => fixture.close());

  async function runWith(tools: LocalToolDispatcher, prompt: string) {
    const events: RunEvent[] = [];
    const outcome = await withCap(
      fixture.client.runs.run(
        { systemPrompt: 'You use tools.', modelId: ECHO_MODEL, prompt, tools: tools.toolRefs() },
        { tools, onEvent: (event) => void events.push(event) },
      ),
      WAIT_CAP_MS,
      () => `the run of '${prompt}' did not end`,
    );
    const text = outcome.type === 'result' ? outcome.result.text : `(${outcome.type})`;
    return { outcome, text, events };
  }

  it('builds the mcp_local ref from server-everything over stdio: accepted names, schemas, annotations, serverInfo', async () => {
    const bridge = await everythingBridge();
    opened.push(bridge);
    const ref = bridge.toolRef();
    const listed = (await bridge.client.listTools()).tools;

    assert.equal(ref.kind, 'mcp_local');
    assert.equal(ref.name, 'everything');
    assert.equal(ref.serverInfo?.name, 'mcp-servers/everything');
    assert.equal(ref.tools.length, listed.length);
    assert.ok(ref.tools.length >= 1 && ref.tools.length <= 64);
    for (const tool of ref.tools) assert.match(tool.name, TOOL_NAME);
    const getSum = ref.tools.find((tool) => tool.name === 'get_sum');
    const original = listed.find((tool) => tool.name === 'get-sum');
    assert.ok(getSum && original, 'get-sum is offered as get_sum');
    assert.deepEqual(getSum.inputSchema, original.inputSchema);
    assert.deepEqual(getSum.annotations, original.annotations);
    assert.equal(getSum.description, original.description);
  });

  it('answers mcp_local calls with tools/call on the server: text parts joined', async () => {
    const bridge = await everythingBridge();
    opened.push(bridge);
    const tools = new LocalToolDispatcher();
    tools.bridge(bridge);
    const { text, events } = await runWith(tools, 'call get_sum {"a":2,"b":3}');
    assert.equal(text, 'Tool get_sum returned: The sum of 2 and 3 is 5.');
    const call = events.find((event) => event.type === 'local_tool_call');
    assert.equal(call?.type === 'local_tool_call' && call.data.kind, 'mcp_local');
    assert.equal(call?.type === 'local_tool_call' && call.data.mcpServer, 'everything');
    assert.equal(call?.type === 'local_tool_call' && call.data.mcpToolName, 'get_sum');
  });

  it('attaches an image result as a file and describes it in the text', async () => {
    const bridge = await everythingBridge();
    opened.push(bridge);
    const tools = new LocalToolDispatcher();
    tools.bridge(bridge);
    const { events } = await runWith(tools, 'call get_tiny_image {}');
    const answer = events.find((event) => event.type === 'local_tool_result_in');
    assert.ok(answer?.type === 'local_tool_result_in');
    assert.match(answer.data.output, /\[image image\/png, \d+ bytes, attached as get_tiny_image-1\.png\]/);
    assert.deepEqual(
      answer.data.files?.map((file) => [file.filename, file.mimeType]),
      [['get_tiny_image-1.png', 'image/png']],
    );
  });

  it('closing the bridge ends the stdio server process', async () => {
    const bridge = await everythingBridge();
    const pid = (bridge.client.transport as StdioClientTransport).pid;
    assert.ok(pid !== null && isAlive(pid), 'the server runs');
    await bridge.close();
    await eventually(() => !isAlive(pid), 'the server process is gone');
  });

  it('lists every page of tools, renames colliding names apart and calls tools by their MCP names', async () => {
    const { client, calls } = await pagingServerClient(PAGING_TOOLS);
    const bridge = await McpLocalBridge.fromClient(client, { name: 'paging' });
    opened.push(bridge);
    const ref = bridge.toolRef();
    assert.deepEqual(
      ref.tools.map((tool) => tool.name),
      ['echo', 'fail', 'media', 'structured', 'a_b', 'a_b_2'],
    );
    assert.deepEqual(ref.serverInfo, { name: 'paging-server', version: '3.1.0' });
    assert.equal(ref.tools[0]?.title, 'Echo tool', 'fields the spec does not name pass through');

    const tools = new LocalToolDispatcher();
    tools.bridge(bridge);
    assert.equal((await runWith(tools, 'call a_b_2 {}')).text, 'Tool a_b_2 returned: a-b got {}');
    assert.equal(
      (await runWith(tools, 'call echo {"text":"hi"}')).text,
      'Tool echo returned: echo got {"text":"hi"}',
    );
    assert.deepEqual(calls, ['a-b', 'echo']);
  });

  it('turns isError into an error, structured content into JSON, and describes what it cannot attach', async () => {
    const { client } = await pagingServerClient(PAGING_TOOLS);
    const bridge = await McpLocalBridge.fromClient(client, { name: 'paging' });
    opened.push(bridge);
    const tools = new LocalToolDispatcher();
    tools.bridge(bridge);

    const failed = await runWith(tools, 'call fail {}');
    const failure = failed.events.find((event) => event.type === 'local_tool_result_in');
    assert.ok(failure?.type === 'local_tool_result_in');
    assert.deepEqual(failure.data, {
      toolUseId: failure.data.toolUseId,
      output: 'the tool failed on purpose',
      isError: true,
    });

    assert.equal(
      (await runWith(tools, 'call structured {}')).text,
      'Tool structured returned: {"answer":42}',
    );

    const media = await runWith(tools, 'call media {}');
    const answer = media.events.find((event) => event.type === 'local_tool_result_in');
    assert.ok(answer?.type === 'local_tool_result_in');
    assert.equal(
      answer.data.output,
      [
        'here is a picture',
        `[image image/png, ${PNG_BYTES} bytes, attached as media-1.png]`,
        '[image image/x-unknown, 3 bytes, not attached]',
        'a note',
        '[resource link q3: file:///reports/q3.pdf (application/pdf)]',
      ].join('\n'),
    );
    assert.deepEqual(answer.data.files, [
      { filename: 'media-1.png', mimeType: 'image/png', sizeBytes: PNG_BYTES },
    ]);
  });

  it('offers only the tools named in `tools`, and refuses a catalog the ref cannot hold', async () => {
    const some = await pagingServerClient(PAGING_TOOLS);
    const bridge = await McpLocalBridge.fromClient(some.client, { name: 'paging', tools: ['echo', 'a.b'] });
    opened.push(bridge);
    assert.deepEqual(
      bridge.toolRef().tools.map((tool) => tool.name),
      ['echo', 'a_b'],
    );

    const many = Array.from({ length: 65 }, (_, index) => ({
      name: `t${index}`,
      inputSchema: { type: 'object' as const },
    }));
    const tooMany = await pagingServerClient(many);
    opened.push(tooMany.client);
    await assert.rejects(McpLocalBridge.fromClient(tooMany.client, { name: 'many' }), /1 to 64 tools/);
  });
});
