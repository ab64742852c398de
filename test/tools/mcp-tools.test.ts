import assert from 'node:assert/strict';
import { createServer, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { McpToolRef } from '../../src/domain/tool-ref.ts';
import type { ServerToolCallContext } from '../../src/engine/ports.ts';
import { openMcpServer, type McpServerTools } from '../../src/tools/mcp/mcp-server-tools.ts';
import type { ServerTool } from '../../src/tools/server-tool.ts';
import {
  BLOB_BYTES,
  ECHO_SCHEMA,
  freePort,
  LONG_TOOL_NAME,
  PAGE_SIZE,
  PNG_BASE64,
  startEverythingServer,
  startMcpTestServer,
  TEST_TOOLS,
  type EverythingServer,
  type McpTestServer,
} from '../support/mcp-test-server.ts';
import { deferred, eventually, withCap, WAIT_CAP_MS } from '../support/waits.ts';

const MODEL_TOOL_NAME = /^[a-zA-Z0-9_]{1,64}$/;
const HEADERS = { authorization: 'Bearer secret-token', 'x-tenant': 'acme' };

function callContext(signal: AbortSignal = new AbortController().signal): ServerToolCallContext {
  return { runId: 'run_1', workspaceId: 'ws_1', agentId: null, signal };
}

function toolNamed(opened: McpServerTools, name: string): ServerTool {
  const found = opened.tools.find((entry) => entry.tool.name === name);
  assert.ok(found, `no tool ${name} among ${opened.tools.map((entry) => entry.tool.name).join(', ')}`);
  return found;
}

function recordingLogger() {
  const warnings: Array<{ fields: object; message: string }> = [];
  return { warnings, warn: (fields: object, message: string) => warnings.push({ fields, message }) };
}

/** An HTTP server on 127.0.0.1 that answers every request with `respond`. */
async function startHttpServer(
  respond: (res: ServerResponse) => void,
): Promise<{ url: string; server: HttpServer; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    respond(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('mcp tools: a remote MCP server over Streamable HTTP', { timeout: 60_000 }, () => {
  let server: McpTestServer;
  before(async () => {
    server = await startMcpTestServer();
  });
  after(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    server.deletedSessions.length = 0;
    server.slowCalls.length = 0;
  });

  function ref(extra: Partial<McpToolRef> = {}): McpToolRef {
    return { kind: 'mcp', name: 'demo', url: server.url, ...extra };
  }

  /** Opens the test server's tools, runs `check`, and always closes the session. */
  async function withOpened(
    extra: Partial<McpToolRef>,
    check: (opened: McpServerTools) => Promise<void> | void,
  ): Promise<void> {
    const opened = await openMcpServer(ref(extra), {
      fetch: globalThis.fetch,
      signal: new AbortController().signal,
    });
    try {
      await check(opened);
    } finally {
      await opened.close();
    }
  }

  it('the catalog is listed at open, following nextCursor until the last page', async () => {
    await withOpened({}, (opened) => {
      assert.equal(opened.tools.length, TEST_TOOLS.length);
      const listRequests = server.requests.filter((request) => request.rpcMethod === 'tools/list');
      assert.equal(listRequests.length, Math.ceil(TEST_TOOLS.length / PAGE_SIZE));
      assert.ok(listRequests.length > 1, 'the catalog needs several pages');
    });
  });

  it('each tool is exposed as <name>_<tool> of kind mcp, with its inputSchema forwarded and its description (or title)', async () => {
    await withOpened({}, (opened) => {
      const echo = toolNamed(opened, 'demo_echo').tool;
      assert.deepEqual(echo, {
        kind: 'mcp',
        name: 'demo_echo',
        description: 'Echoes its text.',
        inputSchema: ECHO_SCHEMA,
        readOnly: false,
        retain: false,
        callExtras: {},
      });
      assert.deepEqual(toolNamed(opened, 'demo_fail').tool.inputSchema, { type: 'object', properties: {} });
      assert.equal(toolNamed(opened, 'demo_lookup').tool.description, 'Look things up');
    });
  });

  it('model names are sanitized to [a-zA-Z0-9_]{1,64}; a long or clashing name is cut with a hash; calls use the MCP name', async () => {
    await withOpened({}, async (opened) => {
      const names = opened.tools.map((entry) => entry.tool.name);
      for (const name of names) assert.match(name, MODEL_TOOL_NAME);
      assert.equal(new Set(names).size, names.length, 'names stay distinct');
      toolNamed(opened, 'demo_weird_name_1');
      const long = names.find((name) => name.startsWith('demo_report_'));
      assert.equal(long?.length, 64);
      const clashing = names.filter((name) => name.startsWith('demo_a_b_'));
      assert.equal(clashing.length, 2, `a.b and a-b: ${names.join(', ')}`);

      const calledLong = await toolNamed(opened, long).handler({}, callContext());
      assert.deepEqual(calledLong, { ok: true, text: `called ${LONG_TOOL_NAME}` });
      const calledWeird = await toolNamed(opened, 'demo_weird_name_1').handler({}, callContext());
      assert.equal(calledWeird.text, 'called weird.name-1');
      const calledClashing = await Promise.all(
        clashing.map((name) => toolNamed(opened, name).handler({}, callContext())),
      );
      assert.deepEqual(calledClashing.map((outcome) => outcome.text).sort(), ['called a-b', 'called a.b']);
    });
    await withOpened({}, (again) => {
      assert.ok(toolNamed(again, 'demo_weird_name_1'), 'the same catalog gives the same names');
    });
  });

  it('toolFilter keeps only the listed MCP tools and silently drops the others', async () => {
    await withOpened({ toolFilter: ['echo', 'lookup', 'not_on_the_server'] }, (opened) => {
      assert.deepEqual(opened.tools.map((entry) => entry.tool.name).sort(), ['demo_echo', 'demo_lookup']);
    });
  });

  it('the ref headers go on every request: initialize, list, call, the SSE stream and the session DELETE', async () => {
    await withOpened({ headers: HEADERS }, async (opened) => {
      const outcome = await toolNamed(opened, 'demo_echo').handler({ text: 'hi' }, callContext());
      assert.deepEqual(outcome, { ok: true, text: 'echo: hi' });
    });
    const seen = server.requests.map((request) => request.rpcMethod ?? request.httpMethod);
    for (const expected of [
      'initialize',
      'notifications/initialized',
      'tools/list',
      'tools/call',
      'DELETE',
    ]) {
      assert.ok(seen.includes(expected), `${expected} among ${seen.join(', ')}`);
    }
    for (const request of server.requests) {
      assert.equal(
        request.headers.authorization,
        HEADERS.authorization,
        `${request.rpcMethod ?? request.httpMethod}`,
      );
      assert.equal(
        request.headers['x-tenant'],
        HEADERS['x-tenant'],
        `${request.rpcMethod ?? request.httpMethod}`,
      );
    }
  });

  it('the client speaks the newest revision the SDK supports (LATEST_PROTOCOL_VERSION): every request after initialize carries it in MCP-Protocol-Version', async () => {
    await withOpened({}, async (opened) => {
      assert.deepEqual(await toolNamed(opened, 'demo_echo').handler({ text: 'v' }, callContext()), {
        ok: true,
        text: 'echo: v',
      });
    });
    const [initialize, ...later] = server.requests.filter((request) => request.httpMethod === 'POST');
    assert.equal(initialize?.rpcMethod, 'initialize');
    assert.ok(later.length >= 3, 'initialized, tools/list and tools/call follow');
    for (const request of later) {
      assert.equal(request.headers['mcp-protocol-version'], LATEST_PROTOCOL_VERSION, request.rpcMethod);
    }
  });

  it('isError: true is a tool error (ok false) carrying its text', async () => {
    await withOpened({}, async (opened) => {
      const outcome = await toolNamed(opened, 'demo_fail').handler({}, callContext());
      assert.deepEqual(outcome, { ok: false, text: 'the tool failed on purpose' });
    });
  });

  it('image, audio and embedded blob results become files; text resources join the text; resource links are named, https ones passed as URL files', async () => {
    await withOpened({}, async (opened) => {
      const outcome = await toolNamed(opened, 'demo_media').handler({}, callContext());
      assert.equal(outcome.ok, true);
      assert.equal(
        outcome.text,
        [
          'here are the files',
          'an embedded note',
          'resource: https://127.0.0.1:9/reports/q3.pdf',
          'resource: file:///local/only.txt',
        ].join('\n\n'),
      );
      assert.deepEqual(outcome.files, [
        {
          filename: 'demo_media-1.png',
          mimeType: 'image/png',
          data: new Uint8Array(Buffer.from(PNG_BASE64, 'base64')),
        },
        {
          filename: 'demo_media-2.wav',
          mimeType: 'audio/wav',
          data: new Uint8Array(Buffer.from('RIFF....WAVE')),
        },
        { filename: 'data.bin', mimeType: 'application/octet-stream', data: new Uint8Array(BLOB_BYTES) },
        { url: 'https://127.0.0.1:9/reports/q3.pdf', filename: 'q3.pdf', mimeType: 'application/pdf' },
      ]);
    });
  });

  it('structuredContent without any text part is given as its JSON', async () => {
    await withOpened({}, async (opened) => {
      const outcome = await toolNamed(opened, 'demo_structured').handler({}, callContext());
      assert.deepEqual(outcome, { ok: true, text: '{"answer":42}' });
    });
  });

  it('readOnlyHint: true makes the tool readOnly; tools without it are not', async () => {
    await withOpened({}, (opened) => {
      assert.equal(toolNamed(opened, 'demo_lookup').tool.readOnly, true);
      assert.equal(toolNamed(opened, 'demo_echo').tool.readOnly, false);
      assert.equal(toolNamed(opened, 'demo_slow').tool.readOnly, false);
    });
  });

  it('an aborted call rejects promptly with the signal reason, and the server sees the cancellation and the call connection end', async () => {
    const opened = await openMcpServer(ref(), {
      fetch: globalThis.fetch,
      signal: new AbortController().signal,
    });
    try {
      const controller = new AbortController();
      const call = toolNamed(opened, 'demo_slow').handler({}, callContext(controller.signal));
      const settled = call.then(
        () => assert.fail('an aborted call must reject'),
        (error: unknown) => error,
      );
      await eventually(() => server.slowCalls[0]?.started === true, 'the slow call runs on the server');

      const reason = new Error('the run was cancelled');
      const abortedAt = performance.now();
      controller.abort(reason);
      const rejection = await withCap(settled, WAIT_CAP_MS, () => 'the aborted call never settled');
      const elapsedMs = performance.now() - abortedAt;
      assert.equal(rejection, reason);
      assert.ok(elapsedMs < 1000, `rejected after ${elapsedMs.toFixed(0)} ms`);

      await eventually(
        () => server.slowCalls[0]?.cancelled === true,
        'the server handler sees the cancellation',
      );
      assert.ok(server.requests.some((request) => request.rpcMethod === 'notifications/cancelled'));
    } finally {
      await opened.close();
    }
    // The SDK leaves a cancelled request's response stream open; closing the session ends it.
    await eventually(() => server.slowCalls[0]?.connectionClosed === true, 'the call connection is closed');
  });

  it('close terminates the session (the server sees a DELETE) and may be called again', async () => {
    const opened = await openMcpServer(ref(), {
      fetch: globalThis.fetch,
      signal: new AbortController().signal,
    });
    await opened.close();
    await opened.close();
    assert.equal(server.deletedSessions.length, 1);
    const deletes = server.requests.filter((request) => request.httpMethod === 'DELETE');
    assert.equal(deletes.length, 1);
    assert.equal(deletes[0]?.headers['mcp-session-id'], server.deletedSessions[0]);
  });

  it('a call failing in transport (the server went away) is a tool error "MCP call failed: …"', async () => {
    const dedicated = await startMcpTestServer();
    let opened: McpServerTools | undefined;
    try {
      opened = await openMcpServer(
        { kind: 'mcp', name: 'gone', url: dedicated.url },
        { fetch: globalThis.fetch, signal: new AbortController().signal },
      );
      await dedicated.close();
      const outcome = await toolNamed(opened, 'gone_echo').handler({ text: 'hi' }, callContext());
      assert.equal(outcome.ok, false);
      assert.match(outcome.text, /^MCP call failed: /);
    } finally {
      await opened?.close();
      await dedicated.close();
    }
  });
});

describe('mcp tools: a server that cannot be opened', { timeout: 60_000 }, () => {
  const aliveSignal = () => new AbortController().signal;

  async function assertStub(opened: McpServerTools, name: string, reason: RegExp): Promise<string> {
    assert.equal(opened.tools.length, 1);
    const [stub] = opened.tools;
    assert.ok(stub);
    assert.equal(stub.tool.name, `${name}_unavailable`);
    assert.equal(stub.tool.kind, 'mcp');
    assert.deepEqual(stub.tool.inputSchema, { type: 'object', properties: {} });
    assert.match(stub.tool.description, new RegExp(`MCP server '${name}' could not be reached at run start`));
    assert.match(stub.tool.description, reason);
    assert.match(stub.tool.description, /report this to the user/i);
    const outcome = await stub.handler({}, callContext());
    assert.deepEqual(outcome, { ok: false, text: stub.tool.description });
    await opened.close();
    return stub.tool.description;
  }

  it('an unreachable server gives the single <name>_unavailable stub whose call is a tool error; open does not throw', async () => {
    const logger = recordingLogger();
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const opened = await openMcpServer(
      { kind: 'mcp', name: 'gone', url },
      { fetch: globalThis.fetch, signal: aliveSignal(), logger },
    );
    await assertStub(opened, 'gone', /ECONNREFUSED|fetch failed/);
    assert.equal(logger.warnings.length, 1);
    assert.deepEqual(logger.warnings[0]?.fields, {
      mcpServer: 'gone',
      reason: (logger.warnings[0]?.fields as { reason: string }).reason,
    });
  });

  it('an HTTP error status at open gives the stub', async () => {
    const failing = await startHttpServer((res) =>
      res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance'),
    );
    try {
      const opened = await openMcpServer(
        { kind: 'mcp', name: 'broken', url: failing.url },
        { fetch: globalThis.fetch, signal: aliveSignal() },
      );
      await assertStub(opened, 'broken', /down for maintenance/);
    } finally {
      await failing.close();
    }
  });

  it('a fetch refused by the guard gives the stub', async () => {
    class FetchRefusedError extends Error {}
    const refusing: typeof globalThis.fetch = async () => {
      throw new FetchRefusedError('refused: 10.0.0.1 is a private address');
    };
    const opened = await openMcpServer(
      { kind: 'mcp', name: 'internal', url: 'http://10.0.0.1/mcp' },
      { fetch: refusing, signal: aliveSignal() },
    );
    await assertStub(opened, 'internal', /10\.0\.0\.1 is a private address/);
  });

  it('deps.signal aborts the open: a server that never answers gives the stub as soon as the run is cancelled', async () => {
    const requestSeen = deferred();
    const silent = await startHttpServer(() => requestSeen.resolve());
    try {
      const controller = new AbortController();
      const opening = openMcpServer(
        { kind: 'mcp', name: 'silent', url: silent.url },
        { fetch: globalThis.fetch, signal: controller.signal },
      );
      await withCap(requestSeen.promise, WAIT_CAP_MS, () => 'the initialize request never arrived');
      const abortedAt = performance.now();
      controller.abort(new Error('the run was cancelled'));
      const opened = await withCap(opening, WAIT_CAP_MS, () => 'the open did not end on abort');
      const elapsedMs = performance.now() - abortedAt;
      assert.ok(elapsedMs < 1000, `open ended ${elapsedMs.toFixed(0)} ms after the abort`);
      await assertStub(opened, 'silent', /the run was cancelled/);
    } finally {
      await silent.close();
    }
  });
});

describe('mcp tools: the published server-everything', { timeout: 60_000 }, () => {
  let everything: EverythingServer;
  before(async () => {
    everything = await startEverythingServer();
  });
  after(() => everything?.stop());

  it('server-everything: its catalog is listed and echo answers through everything_echo', async () => {
    const opened = await openMcpServer(
      { kind: 'mcp', name: 'everything', url: everything.url },
      { fetch: globalThis.fetch, signal: new AbortController().signal },
    );
    try {
      assert.ok(opened.tools.length > 5, `${opened.tools.length} tools`);
      for (const entry of opened.tools) assert.match(entry.tool.name, MODEL_TOOL_NAME);
      const echo = toolNamed(opened, 'everything_echo');
      assert.equal(echo.tool.readOnly, true);
      assert.ok(Object.hasOwn(echo.tool.inputSchema.properties as object, 'message'));
      const outcome = await echo.handler({ message: 'hello' }, callContext());
      assert.deepEqual(outcome, { ok: true, text: 'Echo: hello' });
    } finally {
      await opened.close();
    }
  });

  it('server-everything: get-tiny-image returns its image as a PNG file', async () => {
    const opened = await openMcpServer(
      { kind: 'mcp', name: 'everything', url: everything.url, toolFilter: ['get-tiny-image'] },
      { fetch: globalThis.fetch, signal: new AbortController().signal },
    );
    try {
      assert.deepEqual(
        opened.tools.map((entry) => entry.tool.name),
        ['everything_get_tiny_image'],
      );
      const outcome = await toolNamed(opened, 'everything_get_tiny_image').handler({}, callContext());
      assert.equal(outcome.ok, true);
      assert.equal(outcome.files?.length, 1);
      const [file] = outcome.files ?? [];
      assert.equal(file?.filename, 'everything_get_tiny_image-1.png');
      assert.equal(file?.mimeType, 'image/png');
      assert.ok(file && 'data' in file);
      assert.deepEqual([...file.data.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'PNG signature');
    } finally {
      await opened.close();
    }
  });
});
