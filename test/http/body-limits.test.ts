import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { registerLingeringClose } from '../../src/http/plugins/lingering-close.ts';
import { registeredRoutes } from '../support/registered-routes.ts';
import { createWorkspaceWithKey, startTestServer, type TestServer } from '../support/test-server.ts';

const MiB = 1024 * 1024;
const CHUNK = 64 * 1024;
type Framing = 'content-length' | 'chunked';

/** Every route that takes a body, with the byte limit docs/operations.md gives it. */
const ROUTES: { method: 'POST' | 'PATCH'; pattern: string; limit: number; admin: boolean }[] = [
  { method: 'POST', pattern: '/api/v1/workspaces/:workspaceSlug/agent-runs', limit: 64 * MiB, admin: false },
  {
    method: 'POST',
    pattern: '/api/v1/workspaces/:workspaceSlug/agent-runs/:runId/tool-results',
    limit: 16 * MiB,
    admin: false,
  },
  {
    method: 'POST',
    pattern: '/api/v1/workspaces/:workspaceSlug/agent-runs/:runId/cancel',
    limit: MiB,
    admin: false,
  },
  {
    method: 'POST',
    pattern: '/api/v1/workspaces/:workspaceSlug/agent-runs/:runId/feedback',
    limit: MiB,
    admin: false,
  },
  { method: 'POST', pattern: '/api/v1/workspaces/:workspaceSlug/agent-sessions', limit: MiB, admin: false },
  {
    method: 'POST',
    pattern: '/api/v1/workspaces/:workspaceSlug/agent-sessions/:sessionId/messages',
    limit: 64 * MiB,
    admin: false,
  },
  { method: 'POST', pattern: '/api/v1/workspaces/:workspaceSlug/webhooks', limit: MiB, admin: false },
  {
    method: 'PATCH',
    pattern: '/api/v1/workspaces/:workspaceSlug/webhooks/:webhookId',
    limit: MiB,
    admin: false,
  },
  {
    method: 'POST',
    pattern: '/api/v1/workspaces/:workspaceSlug/webhooks/:webhookId/deliveries/:deliveryId/retry',
    limit: MiB,
    admin: false,
  },
  { method: 'POST', pattern: '/api/v1/workspaces/:workspaceSlug/schedules', limit: MiB, admin: false },
  {
    method: 'PATCH',
    pattern: '/api/v1/workspaces/:workspaceSlug/schedules/:scheduleId',
    limit: MiB,
    admin: false,
  },
  { method: 'POST', pattern: '/api/a2a/:workspaceSlug/agents/:agentSlug', limit: MiB, admin: false },
  { method: 'POST', pattern: '/api/a2a/:workspaceSlug/agents/:agentSlug/', limit: MiB, admin: false },
  { method: 'POST', pattern: '/api/mcp/:workspaceSlug', limit: MiB, admin: false },
  { method: 'POST', pattern: '/api/mcp/:workspaceSlug/', limit: MiB, admin: false },
  { method: 'POST', pattern: '/api/ag-ui/:workspaceSlug/agents/:agentSlug', limit: 64 * MiB, admin: false },
  { method: 'POST', pattern: '/api/ag-ui/:workspaceSlug/agents/:agentSlug/', limit: 64 * MiB, admin: false },
  { method: 'POST', pattern: '/admin/v1/workspaces', limit: MiB, admin: true },
  { method: 'PATCH', pattern: '/admin/v1/workspaces/:slug', limit: MiB, admin: true },
  { method: 'POST', pattern: '/admin/v1/workspaces/:slug/api-keys', limit: MiB, admin: true },
  { method: 'POST', pattern: '/admin/v1/workspaces/:slug/agents', limit: MiB, admin: true },
  { method: 'POST', pattern: '/admin/v1/workspaces/:slug/providers', limit: MiB, admin: true },
  { method: 'POST', pattern: '/admin/v1/workspaces/:slug/tools', limit: MiB, admin: true },
  { method: 'POST', pattern: '/admin/v1/workspaces/:slug/users', limit: MiB, admin: true },
  { method: 'POST', pattern: '/admin/v1/workspaces/:slug/oauth-apps', limit: MiB, admin: true },
  { method: 'POST', pattern: '/admin/v1/offerings', limit: MiB, admin: true },
  { method: 'POST', pattern: '/oauth/sign-in', limit: MiB, admin: false },
  { method: 'POST', pattern: '/oauth/consent', limit: MiB, admin: false },
  { method: 'POST', pattern: '/oauth/sign-out', limit: MiB, admin: false },
  { method: 'POST', pattern: '/oauth/token', limit: MiB, admin: false },
  { method: 'POST', pattern: '/oauth/revoke', limit: MiB, admin: false },
  { method: 'POST', pattern: '/console/oauth/handoff', limit: MiB, admin: false },
];
type Route = (typeof ROUTES)[number];

/** What a client got: the response it read in full, or the error it saw before that. */
interface Outcome {
  status?: number;
  body?: unknown;
  error?: string;
}

/** A JSON body of exactly `size` bytes. */
const jsonBody = (size: number) => Buffer.from(`{"pad":"${'a'.repeat(size - 10)}"}`);
const parseJson = (bytes: Buffer) => {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return bytes.toString('utf8');
  }
};
const errorCode = (error: unknown) => {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code ?? (error as { code?: string }).code ?? String(error);
};

/** Node's http.request writing the body in 64 KiB chunks; like fetch, it stops sending once answered. */
function sendWithHttpRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Buffer,
  framing: Framing,
) {
  return new Promise<Outcome>((resolve) => {
    const request = http.request(url, {
      method,
      agent: false,
      headers: {
        ...headers,
        'content-type': 'application/json',
        ...(framing === 'content-length' && { 'content-length': String(body.length) }),
      },
    });
    let answered = false;
    const settle = (outcome: Outcome) => {
      answered = true;
      request.destroy();
      resolve(outcome);
    };
    request.on('error', (error) => settle({ error: errorCode(error) }));
    request.on('response', (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => settle({ error: errorCode(error) }));
      response.on('end', () =>
        settle({ status: response.statusCode ?? 0, body: parseJson(Buffer.concat(chunks)) }),
      );
    });
    let sent = 0;
    const write = () => {
      while (!answered && sent < body.length) {
        const piece = body.subarray(sent, sent + CHUNK);
        sent += piece.length;
        if (!request.write(piece)) return void request.once('drain', write);
      }
      if (!answered) request.end();
    };
    write();
  });
}

/** fetch (undici): a byte body is sent with content-length, a stream body chunked. */
async function sendWithFetch(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Buffer,
  framing: Framing,
) {
  const streamed = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < body.length; at += CHUNK) controller.enqueue(body.subarray(at, at + CHUNK));
      controller.close();
    },
  });
  try {
    const response = await fetch(url, {
      method,
      headers: { ...headers, 'content-type': 'application/json' },
      ...(framing === 'content-length' ? { body } : { body: streamed, duplex: 'half' }),
    });
    return { status: response.status, body: parseJson(Buffer.from(await response.arrayBuffer())) };
  } catch (error) {
    return { error: errorCode(error) };
  }
}

/**
 * A client that reads nothing until it has written its whole request (as many blocking clients do),
 * over a raw socket: `size` bytes of `body`, repeated as needed. `written` is how much of it the server
 * let it write.
 */
function sendAllThenRead(port: number, head: string, body: Buffer, framing: Framing, size = body.length) {
  return new Promise<Outcome & { written: number }>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.pause();
    let written = 0;
    let received = Buffer.alloc(0);
    socket.on('error', (error) => resolve({ error: errorCode(error), written }));
    // Done once the response is complete by its content-length: a keep-alive answer sends no FIN.
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const split = received.indexOf('\r\n\r\n');
      const head = received.subarray(0, split).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
      if (split === -1 || received.length < split + 4 + length) return;
      const body = parseJson(received.subarray(split + 4, split + 4 + length));
      resolve({ status: Number(head.slice(9, 12)), body, written });
      socket.destroy();
    });
    socket.on('end', () => resolve({ error: `connection ended: ${received.toString('latin1')}`, written }));
    const frame = (piece: Buffer) =>
      framing === 'chunked'
        ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
        : piece;
    const lengthHeader = framing === 'chunked' ? 'transfer-encoding: chunked' : `content-length: ${size}`;
    socket.write(`${head}content-type: application/json\r\n${lengthHeader}\r\n\r\n`);
    const write = () => {
      while (written < size) {
        const at = written % body.length;
        const piece = body.subarray(at, at + Math.min(CHUNK, size - written));
        written += piece.length;
        if (!socket.write(frame(piece))) return void socket.once('drain', write);
      }
      if (framing === 'chunked') socket.write('0\r\n\r\n');
      socket.resume();
    };
    write();
  });
}

describe('request bodies over a route limit', () => {
  let server: TestServer;
  let ws: Awaited<ReturnType<typeof createWorkspaceWithKey>>;
  const body6MB = jsonBody(6_000_000);
  const body70MB = jsonBody(70_000_000);

  before(async () => {
    server = await startTestServer({ dev: true });
    ws = await createWorkspaceWithKey(server, 'limits');
  });
  after(() => server.close());

  const urlOf = (route: Route) =>
    server.baseUrl +
    route.pattern
      .replace(':workspaceSlug', ws.slug)
      .replace(':slug', ws.slug)
      .replace(':runId', 'run_01J0000000000000000000000')
      .replace(':sessionId', 'ses_01J0000000000000000000000');
  const credentialOf = (route: Route) => ({
    authorization: `Bearer ${route.admin ? server.adminToken : ws.key}`,
  });
  const tooLargeBody = (limit: number) => ({
    error: 'payload_too_large',
    message: `the request body exceeds this route's limit of ${limit} bytes`,
  });
  /** Sends to each route in turn; the failure lists every route whose outcome was not the expected one. */
  const expectEach = async (
    routes: Route[],
    send: (route: Route) => Promise<Outcome>,
    expected: 'payload_too_large' | 'answered, not 413',
  ) => {
    const problems: string[] = [];
    for (const route of routes) {
      const outcome = await send(route);
      const ok =
        expected === 'payload_too_large'
          ? outcome.status === 413 && isDeepStrictEqual(outcome.body, tooLargeBody(route.limit))
          : outcome.error === undefined && typeof outcome.status === 'number' && outcome.status !== 413;
      if (!ok) problems.push(`${route.method} ${route.pattern}: ${JSON.stringify(outcome).slice(0, 300)}`);
    }
    assert.deepEqual(problems, [], `expected ${expected}`);
  };
  const small = ROUTES.filter((route) => route.limit === MiB);
  const large = ROUTES.filter((route) => route.limit > MiB);
  const viaHttpRequest = (body: Buffer, framing: Framing) => (route: Route) =>
    sendWithHttpRequest(urlOf(route), route.method, credentialOf(route), body, framing);
  const viaFetch = (body: Buffer, framing: Framing) => (route: Route) =>
    sendWithFetch(urlOf(route), route.method, credentialOf(route), body, framing);
  const headOf = (route: Route, credential = credentialOf(route).authorization) =>
    `${route.method} ${new URL(urlOf(route)).pathname} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ${credential}\r\n`;
  const port = () => Number(new URL(server.baseUrl).port);

  it('the table covers every route that takes a body', () => {
    const withBodies = registeredRoutes(server.service.app).filter((route) =>
      ['POST', 'PATCH', 'PUT'].includes(route.split(' ')[0] ?? ''),
    );
    assert.deepEqual(withBodies.sort(), ROUTES.map((route) => `${route.method} ${route.pattern}`).sort());
  });

  for (const framing of ['content-length', 'chunked'] as const) {
    it(`a 6 MB body (${framing}) over a 1 MiB limit: the client reads 413 payload_too_large naming the limit (http.request and fetch)`, async () => {
      await expectEach(small, viaHttpRequest(body6MB, framing), 'payload_too_large');
      await expectEach(small, viaFetch(body6MB, framing), 'payload_too_large');
    });

    it(`a 6 MB body (${framing}) within a 16 or 64 MiB limit is read and answered, not 413 (http.request and fetch)`, async () => {
      await expectEach(large, viaHttpRequest(body6MB, framing), 'answered, not 413');
      await expectEach(large, viaFetch(body6MB, framing), 'answered, not 413');
    });
  }

  it('a 70 MB body over any route limit, found while streaming it (chunked): the client reads the 413', async () => {
    await expectEach(ROUTES, viaHttpRequest(body70MB, 'chunked'), 'payload_too_large');
  });

  it('a 70 MB body declared by content-length over a 16 or 64 MiB limit: the client reads the 413', async () => {
    await expectEach(large, viaFetch(body70MB, 'content-length'), 'payload_too_large');
  });

  it('a client that reads nothing until it has sent its whole 6 MB body still reads the 413: the server discards the rest', async () => {
    for (const framing of ['content-length', 'chunked'] as const) {
      await expectEach(
        small,
        async (route) => {
          const outcome = await sendAllThenRead(port(), headOf(route), body6MB, framing);
          return outcome.written === body6MB.length
            ? outcome
            : { ...outcome, error: outcome.error ?? `wrote only ${outcome.written}` };
        },
        'payload_too_large',
      );
    }
  });

  it('the discarding is bounded, after a 413 or a 401 alike: past 64 MiB discarded the server closes the connection', async () => {
    const size = 100_000_000;
    for (const credential of [`Bearer ${ws.key}`, 'Bearer svc_not_a_key']) {
      const outcome = await sendAllThenRead(
        port(),
        headOf(small[0]!, credential),
        body70MB,
        'content-length',
        size,
      );
      assert.ok(outcome.error !== undefined && outcome.written < size, JSON.stringify(outcome));
      assert.ok(outcome.written > 64 * MiB, `the client could write only ${outcome.written} bytes`);
    }
  });

  it('a refusal sent before the body is read (401) reaches a client still sending its body', async () => {
    const route = small.find((candidate) => !candidate.admin)!;
    const outcome = await sendAllThenRead(
      port(),
      headOf(route, 'Bearer svc_not_a_key'),
      body6MB,
      'content-length',
    );
    assert.equal(outcome.status, 401, JSON.stringify(outcome));
    assert.equal(outcome.written, body6MB.length);
  });

  it('the server stays healthy: normal requests succeed afterwards', async () => {
    assert.equal((await server.request('GET', '/healthz')).status, 200);
    const session = await server.request('POST', `${ws.ws}/agent-sessions`, {
      body: { systemPrompt: 's' },
      headers: { authorization: `Bearer ${ws.key}` },
    });
    assert.equal(session.status, 201, JSON.stringify(session.body));
    assert.equal((await server.admin('PATCH', `/workspaces/${ws.slug}`, { name: 'Limits' })).status, 200);
  });
});

describe('lingering close after an early answer', () => {
  it('a client that stops sending after the answer is cut at the deadline', async () => {
    const app = Fastify({ bodyLimit: 1024 });
    registerLingeringClose(app, { maxDiscardBytes: MiB, maxLingerMs: 300 });
    app.post('/', async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const connections = () =>
      new Promise<number>((resolve) => app.server.getConnections((_, count) => resolve(count)));
    try {
      const { port } = app.server.address() as net.AddressInfo;
      // Half-open: the client keeps its sending side open after the server's FIN, and sends nothing more.
      const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      socket.on('error', () => {});
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      socket.write(
        `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n`,
      );
      socket.write(Buffer.alloc(10_000, 'a'));
      const started = performance.now();
      await new Promise((resolve) => socket.once('end', resolve));
      assert.match(received, /^HTTP\/1\.1 413 .*\r\nconnection: close\r\n/is);
      assert.equal(await connections(), 1, 'the server still reads the rest of the body');
      while ((await connections()) > 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const lingered = performance.now() - started;
      assert.ok(lingered >= 250 && lingered < 2_000, `closed after ${lingered.toFixed(0)} ms`);
      socket.destroy();
    } finally {
      await app.close();
    }
  });
});
