import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import type { HttpToolTarget, WorkspaceTool } from '../../src/domain/workspace-tool.ts';
import type { ServerToolCallContext } from '../../src/engine/ports.ts';
import { httpTool } from '../../src/tools/svc/http-tool.ts';
import { deferred, WAIT_CAP_MS, withCap } from '../support/waits.ts';

interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real endpoint on 127.0.0.1: what it received, and when a client connection closed. */
interface Endpoint {
  url: string;
  requests: SeenRequest[];
  requestSeen: Promise<void>;
  connectionClosed: Promise<void>;
  close(): Promise<void>;
}

type Respond = (res: ServerResponse, req: IncomingMessage) => void;

async function serve(respond: Respond): Promise<Endpoint> {
  const requests: SeenRequest[] = [];
  const seen = deferred();
  const closed = deferred();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      seen.resolve();
      respond(res, req);
    });
  });
  server.on('connection', (socket) => socket.on('close', () => closed.resolve()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    requestSeen: seen.promise,
    connectionClosed: closed.promise,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function json(body: unknown, status = 200): Respond {
  return (res) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function row(http: Partial<HttpToolTarget> & { url: string }): WorkspaceTool {
  return {
    id: 'tool_1',
    workspaceId: 'ws_1',
    name: 'lookup',
    description: 'Looks things up.',
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
    http: { method: 'POST', headers: {}, ...http },
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

function callContext(signal: AbortSignal = new AbortController().signal): ServerToolCallContext {
  return { runId: 'run_1', workspaceId: 'ws_1', agentId: null, signal };
}

/** Calls the row's tool once against an endpoint that answers with `respond`. */
async function callOnce(
  respond: Respond,
  http: Partial<HttpToolTarget> = {},
  args: Record<string, unknown> = {},
  options: { timeoutMs?: number; maxResponseBytes?: number } = {},
) {
  const endpoint = await serve(respond);
  try {
    const { handler } = httpTool(row({ ...http, url: `${endpoint.url}${http.url ?? '/'}` }), {
      fetch: globalThis.fetch,
      ...options,
    });
    const outcome = await handler(args, callContext());
    return { outcome, requests: endpoint.requests, endpoint };
  } finally {
    await endpoint.close();
  }
}

function holdResponse(): Respond {
  return () => {};
}

describe('svc: a workspace Tool row called over HTTP', { timeout: 60_000 }, () => {
  it('the model sees kind svc with the row name, description and parameters as the input schema', () => {
    const { tool } = httpTool(row({ url: 'http://127.0.0.1:1/' }), { fetch: globalThis.fetch });
    assert.deepEqual(tool, {
      kind: 'svc',
      name: 'lookup',
      description: 'Looks things up.',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      readOnly: false,
      retain: false,
      callExtras: {},
    });
  });

  it('a GET tool is read-only; every other method is not', () => {
    const readOnly = (method: HttpToolTarget['method']) =>
      httpTool(row({ url: 'http://127.0.0.1:1/', method }), { fetch: globalThis.fetch }).tool.readOnly;
    assert.equal(readOnly('GET'), true);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) assert.equal(readOnly(method), false);
  });

  it("POST sends the arguments as a JSON body with the row's headers", async () => {
    const args = { q: 'paris', limit: 3, filters: { country: 'FR' } };
    const { outcome, requests } = await callOnce(
      json({ found: 1 }),
      { method: 'POST', url: '/search', headers: { 'X-Api-Key': 'k1', Accept: 'application/json' } },
      args,
    );
    assert.equal(outcome.ok, true);
    const [request] = requests;
    assert.ok(request);
    assert.equal(request.method, 'POST');
    assert.equal(request.url, '/search');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers['x-api-key'], 'k1');
    assert.equal(request.headers.accept, 'application/json', 'the row header wins over the default accept');
    assert.deepEqual(JSON.parse(request.body), args);
  });

  it('every HTTP call sends Idempotency-Key: <toolUseId>, the same on another execution of the call, over a row header of that name', async () => {
    const endpoint = await serve(json({ ok: true }));
    try {
      const { handler } = httpTool(
        row({ url: `${endpoint.url}/charge`, headers: { 'Idempotency-Key': 'from-the-row' } }),
        { fetch: globalThis.fetch },
      );
      for (let execution = 0; execution < 2; execution += 1) {
        assert.equal((await handler({}, { ...callContext(), toolUseId: 'toolu_charge' })).ok, true);
      }
      await handler({}, { ...callContext(), toolUseId: 'toolu_other' });
      assert.deepEqual(
        endpoint.requests.map((request) => request.headers['idempotency-key']),
        ['toolu_charge', 'toolu_charge', 'toolu_other'],
      );
    } finally {
      await endpoint.close();
    }
  });

  it("GET sends the arguments as query parameters, after the url's own query", async () => {
    const { requests } = await callOnce(
      json({}),
      { method: 'GET', url: '/search?v=2&sort=a%20b', headers: { authorization: 'Bearer t' } },
      { q: 'paris', limit: 3, exact: true, tags: ['a', 'b'], filters: { country: 'FR' } },
    );
    const [request] = requests;
    assert.ok(request);
    assert.equal(request.method, 'GET');
    assert.equal(request.body, '');
    assert.equal(request.headers.authorization, 'Bearer t');
    assert.match(request.headers.accept ?? '', /^application\/json, text\/\*;q=0\.9/);
    assert.ok(request.url.startsWith('/search?v=2&sort=a%20b&'), request.url);
    const query = new URL(request.url, 'http://x').searchParams;
    assert.equal(query.get('q'), 'paris');
    assert.equal(query.get('limit'), '3');
    assert.equal(query.get('exact'), 'true');
    assert.equal(query.get('tags'), '["a","b"]');
    assert.equal(query.get('filters'), '{"country":"FR"}');
  });

  it('a 2xx JSON response becomes the result as received', async () => {
    const body = '{ "temperature": 21, "sky": "sunny" }';
    const { outcome } = await callOnce((res) =>
      res.writeHead(201, { 'content-type': 'application/json; charset=utf-8' }).end(body),
    );
    assert.deepEqual(outcome, { ok: true, text: body });
  });

  it('a text response becomes the result', async () => {
    const { outcome } = await callOnce((res) =>
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('21°C and sunny'),
    );
    assert.deepEqual(outcome, { ok: true, text: '21°C and sunny' });
  });

  it('a non-2xx status is a tool error with the status and the body, truncated', async () => {
    const small = await callOnce((res) =>
      res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream down'),
    );
    assert.deepEqual(small.outcome, { ok: false, text: 'HTTP 503: upstream down' });

    const large = await callOnce((res) => res.writeHead(500).end('e'.repeat(100_000)));
    assert.equal(large.outcome.ok, false);
    assert.ok(large.outcome.text.startsWith('HTTP 500: eee'));
    assert.ok(large.outcome.text.length < 9_000, `${large.outcome.text.length} characters`);
  });

  it('an unreachable endpoint is a tool error naming the network cause', async () => {
    const gone = await serve(holdResponse());
    await gone.close();
    const { handler } = httpTool(row({ url: gone.url }), { fetch: globalThis.fetch });
    const outcome = await handler({}, callContext());
    assert.equal(outcome.ok, false);
    assert.match(outcome.text, /^the HTTP tool lookup failed: .*ECONNREFUSED/);
  });

  it('a response slower than the timeout is a tool error', async () => {
    const started = Date.now();
    const { outcome } = await callOnce(holdResponse(), {}, {}, { timeoutMs: 200 });
    assert.deepEqual(outcome, { ok: false, text: 'the HTTP tool lookup timed out after 200 ms' });
    assert.ok(Date.now() - started < WAIT_CAP_MS);
  });

  it('a response over the size cap stops the reading and is a tool error', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const streamForever: Respond = (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const write = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', write);
      };
      write();
    };
    const endpoint = await serve(streamForever);
    try {
      const { handler } = httpTool(row({ url: endpoint.url }), { fetch: globalThis.fetch });
      const outcome = await withCap(
        handler({}, callContext()),
        WAIT_CAP_MS,
        () => 'the capped call never ended',
      );
      assert.deepEqual(outcome, {
        ok: false,
        text: 'the HTTP tool lookup returned a response larger than 2097152 bytes',
      });
      await withCap(endpoint.connectionClosed, WAIT_CAP_MS, () => 'the client kept the connection open');
    } finally {
      await endpoint.close();
    }
  });

  it('files in a JSON response become files: base64 as bytes, https urls stay urls, malformed entries noted', async () => {
    const { outcome } = await callOnce(
      json({
        result: 'made the report',
        files: [
          { filename: 'report.txt', mimeType: 'text/plain', data: Buffer.from('hello').toString('base64') },
          {
            filename: 'chart.png',
            mimeType: 'image/png',
            url: 'https://127.0.0.1:9/chart.png',
            sizeBytes: 10,
          },
          { filename: 'plain.csv', mimeType: 'text/csv', url: 'http://127.0.0.1:9/plain.csv' },
          { mimeType: 'text/plain', data: 'aGk=' },
        ],
      }),
    );
    assert.equal(outcome.ok, true);
    assert.deepEqual(outcome.files, [
      { filename: 'report.txt', mimeType: 'text/plain', data: new Uint8Array(Buffer.from('hello')) },
      { filename: 'chart.png', mimeType: 'image/png', url: 'https://127.0.0.1:9/chart.png', sizeBytes: 10 },
    ]);
    assert.ok(outcome.text.startsWith('made the report'), outcome.text);
    assert.match(outcome.text, /files\[2\] ignored: url is not an https URL/);
    assert.match(outcome.text, /files\[3\] ignored: no filename/);
  });

  it('without a string result, the text of a files response is its JSON minus the files', async () => {
    const { outcome } = await callOnce(
      json({ count: 1, files: [{ filename: 'a.bin', mimeType: 'application/octet-stream', data: 'AAE=' }] }),
    );
    assert.deepEqual(outcome, {
      ok: true,
      text: '{"count":1}',
      files: [{ filename: 'a.bin', mimeType: 'application/octet-stream', data: new Uint8Array([0, 1]) }],
    });
  });

  it('more than 20 files is a tool error', async () => {
    const files = Array.from({ length: 21 }, (_, index) => ({
      filename: `f${index}.txt`,
      mimeType: 'text/plain',
      url: `https://files.example/f${index}.txt`,
    }));
    const { outcome } = await callOnce(json({ files }));
    assert.deepEqual(outcome, {
      ok: false,
      text: 'the HTTP tool lookup returned 21 files; at most 20 are allowed',
    });
  });

  it('a binary response becomes one file, named by content-disposition or else after the tool', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]);
    const named = await callOnce((res) =>
      res
        .writeHead(200, {
          'content-type': 'image/png',
          'content-disposition': 'attachment; filename="chart.png"',
        })
        .end(png),
    );
    assert.deepEqual(named.outcome, {
      ok: true,
      text: 'returned file chart.png (image/png, 12 bytes)',
      files: [{ filename: 'chart.png', mimeType: 'image/png', data: new Uint8Array(png) }],
    });

    const unnamed = await callOnce((res) =>
      res.writeHead(200, { 'content-type': 'application/pdf' }).end(png),
    );
    assert.equal(unnamed.outcome.files?.[0]?.filename, 'lookup.pdf');
    assert.equal(unnamed.outcome.text, 'returned file lookup.pdf (application/pdf, 12 bytes)');
  });

  it("an abort of the call's signal rejects with its reason and closes the connection", async () => {
    const endpoint = await serve(holdResponse());
    try {
      const { handler } = httpTool(row({ url: endpoint.url }), { fetch: globalThis.fetch });
      const controller = new AbortController();
      const call = handler({}, callContext(controller.signal));
      await withCap(endpoint.requestSeen, WAIT_CAP_MS, () => 'the request never arrived');
      const reason = new Error('run cancelled');
      controller.abort(reason);
      await assert.rejects(call, (error) => error === reason);
      await withCap(endpoint.connectionClosed, WAIT_CAP_MS, () => 'the client kept the connection open');
    } finally {
      await endpoint.close();
    }
  });
});
