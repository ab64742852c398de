import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { request as undiciRequest } from 'undici';
import { classifyAddress, createAddressPolicy } from '../../src/tools/fetch-guard/address-policy.ts';
import { FetchRefusedError, fetchRefusal } from '../../src/tools/fetch-guard/fetch-refused-error.ts';
import { createGuardedAgent, guardedLookup } from '../../src/tools/fetch-guard/guarded-agent.ts';
import { createGuardedFetch, refuseUnfetchableUrl } from '../../src/tools/fetch-guard/guarded-fetch.ts';

const LOOPBACK_ALLOWED = ['127.0.0.0/8'];
/** Loopback allowed for 127.0.0.1 only: 127.0.0.2 stands for a refused address a broken guard could reach harmlessly. */
const ONLY_127_0_0_1 = ['127.0.0.1/32'];

interface RecordingLookup extends LookupFunction {
  names: string[];
}

/** Resolves names from a table, never from real DNS, and records what it was asked. */
function fakeLookup(table: Record<string, string[]>): RecordingLookup {
  const names: string[] = [];
  const lookup: LookupFunction = (hostname, options, callback) => {
    names.push(hostname);
    const addresses = (table[hostname] ?? []).map((address) => ({
      address,
      family: address.includes(':') ? 6 : 4,
    }));
    const first = addresses[0];
    if (first === undefined)
      callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    else if (options.all) callback(null, addresses);
    else callback(null, first.address, first.family);
  };
  return Object.assign(lookup, { names });
}

interface LoopbackServer {
  port: number;
  origin: string;
  requests: IncomingMessage[];
  bodies: string[];
  connections: number;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that records every connection and request (with its body). */
async function startLoopbackServer(
  handle: (request: IncomingMessage, response: ServerResponse, server: LoopbackServer) => void,
): Promise<LoopbackServer> {
  const server: Server = createServer();
  const state: LoopbackServer = {
    port: 0,
    origin: '',
    requests: [],
    bodies: [],
    connections: 0,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  server.on('connection', () => (state.connections += 1));
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    state.requests.push(request);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      state.bodies.push(Buffer.concat(chunks).toString());
      handle(request, response, state);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  state.port = (server.address() as AddressInfo).port;
  state.origin = `http://127.0.0.1:${state.port}`;
  return state;
}

function redirect(response: ServerResponse, status: number, location: string): void {
  response.writeHead(status, { location }).end();
}

/** What the loopback server echoes back about a request it served. */
interface Echo {
  method: string;
  path: string;
  host: string;
  authorization: string | null;
  contentType: string | null;
  body: string;
}

const echoOf = async (response: Response) => (await response.json()) as Echo;

const refusedWith = (pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof FetchRefusedError, `expected a FetchRefusedError, got ${String(error)}`);
  assert.equal(error.name, 'FetchRefusedError');
  assert.match(error.message, pattern);
  return true;
};

describe('address classification (addresses alone, no traffic)', () => {
  const cases: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['127.45.6.7', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.16.3.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.10.20', 'link-local'],
    ['fe80::1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.64.0.1', 'carrier-grade-nat'],
    ['100.127.255.254', 'carrier-grade-nat'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['fc00::1', 'unique-local'],
    ['fdab:cdef::1', 'unique-local'],
    ['64:ff9b::a00:1', 'ipv4-translation'],
    ['2002:a00:1::1', 'ipv4-translation'],
    ['not an ip', 'not-an-address'],
  ];
  for (const [address, expected] of cases) {
    it(`${address} is classed ${expected}`, () => {
      assert.equal(classifyAddress(address), expected);
    });
  }

  it('IPv4-mapped IPv6 addresses are classed as the IPv4 address they carry', () => {
    assert.equal(classifyAddress('::ffff:10.0.0.1'), 'private');
    assert.equal(classifyAddress('::ffff:127.0.0.1'), 'loopback');
    assert.equal(classifyAddress('::ffff:7f00:1'), 'loopback');
    assert.equal(classifyAddress('::ffff:169.254.169.254'), 'metadata');
    assert.equal(classifyAddress('::ffff:93.184.216.34'), 'public');
  });

  it('globally routable unicast addresses are public', () => {
    assert.equal(classifyAddress('93.184.216.34'), 'public');
    assert.equal(classifyAddress('2606:4700::1111'), 'public');
  });

  it('the policy refuses every non-public address and accepts public ones', () => {
    const policy = createAddressPolicy([]);
    assert.equal(policy.check('10.0.0.5'), 'private');
    assert.equal(policy.check('::ffff:127.0.0.1'), 'loopback');
    assert.equal(policy.check('169.254.169.254'), 'metadata');
    assert.equal(policy.check('93.184.216.34'), undefined);
    assert.equal(policy.check('2606:4700::1111'), undefined);
  });

  it('allowed CIDR ranges override the refusal, including the IPv4-mapped form of an allowed IPv4', () => {
    const policy = createAddressPolicy(['127.0.0.0/8', '::1/128', '10.1.0.0/16']);
    assert.equal(policy.check('127.0.0.1'), undefined);
    assert.equal(policy.check('::1'), undefined);
    assert.equal(policy.check('::ffff:127.0.0.1'), undefined);
    assert.equal(policy.check('10.1.2.3'), undefined);
    assert.equal(policy.check('10.2.0.1'), 'private');
    assert.equal(policy.check('169.254.169.254'), 'metadata');
  });

  it('an invalid allowed range is a programming error', () => {
    assert.throws(() => createAddressPolicy(['127.0.0.1']), /not a CIDR range/);
  });
});

describe('guarded lookup (addresses alone, no traffic)', () => {
  const policy = createAddressPolicy([]);
  const resolveWith = (addresses: string[], all: boolean) =>
    new Promise<{ error: Error | null; resolved: unknown; family: number | undefined }>((resolve) => {
      guardedLookup(policy, fakeLookup({ 'peer.test': addresses }))(
        'peer.test',
        { all },
        (error, resolved, family) => resolve({ error, resolved, family }),
      );
    });

  it('a name with one private address among public ones is refused', async () => {
    const { error } = await resolveWith(['93.184.216.34', '10.0.0.1', '2606:4700::1111'], true);
    assert.ok(error instanceof FetchRefusedError);
    assert.match(error.message, /peer\.test resolves to 10\.0\.0\.1, a private address/);
  });

  it('a name resolving to a private or a metadata address is refused, naming the address and its class', async () => {
    const privateName = await resolveWith(['10.1.2.3'], true);
    assert.ok(privateName.error instanceof FetchRefusedError);
    assert.match(privateName.error.message, /peer\.test resolves to 10\.1\.2\.3, a private address/);
    const metadataName = await resolveWith(['169.254.169.254'], false);
    assert.ok(metadataName.error instanceof FetchRefusedError);
    assert.match(
      metadataName.error.message,
      /peer\.test resolves to 169\.254\.169\.254, a cloud metadata address/,
    );
  });

  it('a hop (first URL or redirect target) to a private or metadata IP literal is refused before anything connects', () => {
    assert.throws(
      () => refuseUnfetchableUrl(new URL('http://10.0.0.7/'), policy),
      refusedWith(/^refused to fetch http:\/\/10\.0\.0\.7\/: 10\.0\.0\.7 is a private address/),
    );
    assert.throws(
      () => refuseUnfetchableUrl(new URL('http://169.254.169.254/latest?token=x'), policy),
      refusedWith(
        /^refused to fetch http:\/\/169\.254\.169\.254\/latest: 169\.254\.169\.254 is a cloud metadata/,
      ),
    );
    assert.throws(
      () => refuseUnfetchableUrl(new URL('http://[fd00:ec2::254]/'), policy),
      refusedWith(/metadata/),
    );
    assert.doesNotThrow(() => refuseUnfetchableUrl(new URL('https://93.184.216.34/'), policy));
    assert.doesNotThrow(
      () => refuseUnfetchableUrl(new URL('https://docs.test/'), policy),
      'names are checked at lookup',
    );
  });

  it('a name with only public addresses resolves in the form the caller asked for', async () => {
    const all = await resolveWith(['93.184.216.34', '2606:4700::1111'], true);
    assert.equal(all.error, null);
    assert.deepEqual(all.resolved, [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700::1111', family: 6 },
    ]);
    const one = await resolveWith(['93.184.216.34'], false);
    assert.equal(one.resolved, '93.184.216.34');
    assert.equal(one.family, 4);
  });
});

describe('guarded fetch', { timeout: 20_000 }, () => {
  let server: LoopbackServer;
  let pendingRequests: ServerResponse[];
  before(async () => {
    pendingRequests = [];
    server = await startLoopbackServer((request, response, self) => {
      const url = new URL(request.url ?? '/', self.origin);
      const to = url.searchParams.get('to');
      switch (url.pathname) {
        case '/redirect':
          redirect(response, Number(url.searchParams.get('status') ?? 302), to ?? '/');
          return;
        case '/loop':
          redirect(response, 302, '/loop');
          return;
        case '/empty':
          response.writeHead(204).end();
          return;
        case '/stream':
          response.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: first\n\n');
          pendingRequests.push(response);
          return;
        case '/hold':
          pendingRequests.push(response);
          return;
        default:
          response.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              method: request.method,
              path: request.url,
              host: request.headers.host,
              authorization: request.headers.authorization ?? null,
              contentType: request.headers['content-type'] ?? null,
              body: self.bodies.at(-1),
            }),
          );
      }
    });
  });
  after(async () => {
    for (const response of pendingRequests) response.destroy();
    await server.close();
  });

  const resetCounts = () => {
    server.connections = 0;
    server.requests.length = 0;
    server.bodies.length = 0;
  };

  it('a loopback IP literal is refused without an allow list and no connection is opened', async () => {
    resetCounts();
    const guardedFetch = createGuardedFetch({ allow: [] });
    await assert.rejects(
      guardedFetch(`${server.origin}/x?secret=1`),
      refusedWith(
        new RegExp(
          `^refused to fetch http://127\\.0\\.0\\.1:${server.port}/x: 127\\.0\\.0\\.1 is a loopback address \\(set AGENT_RUNS_FETCH_ALLOW to allow a range\\)$`,
        ),
      ),
    );
    assert.equal(server.connections, 0);
  });

  it('a loopback IP literal is served when 127.0.0.0/8 is allowed', async () => {
    const guardedFetch = createGuardedFetch({ allow: LOOPBACK_ALLOWED });
    const response = await guardedFetch(`${server.origin}/ok`);
    assert.equal(response.status, 200);
    assert.equal((await echoOf(response)).path, '/ok');
  });

  it('a name resolving to loopback is refused without an allow list and served with one', async () => {
    resetCounts();
    const lookup = fakeLookup({ 'tool.test': ['127.0.0.1'] });
    const url = `http://tool.test:${server.port}/named`;
    await assert.rejects(
      createGuardedFetch({ allow: [], lookup })(url),
      refusedWith(
        /^refused to fetch http:\/\/tool\.test:\d+\/named: tool\.test resolves to 127\.0\.0\.1, a loopback/,
      ),
    );
    assert.equal(server.connections, 0);
    assert.deepEqual(lookup.names, ['tool.test']);
    const response = await createGuardedFetch({ allow: LOOPBACK_ALLOWED, lookup })(url);
    assert.equal(response.status, 200);
    assert.equal((await echoOf(response)).host, `tool.test:${server.port}`);
  });

  // Through a real fetch, the refused targets are loopback addresses outside the allowed 127.0.0.1/32:
  // even a broken guard could only send traffic to loopback. Private and metadata addresses are
  // checked on addresses alone above.
  it('a name resolving to a refused address is refused at lookup, before any socket connects', async () => {
    resetCounts();
    const lookup = fakeLookup({ 'internal.test': ['127.0.0.2'] });
    const guardedFetch = createGuardedFetch({ allow: ONLY_127_0_0_1, lookup });
    await assert.rejects(
      guardedFetch(`http://internal.test:${server.port}/x`),
      refusedWith(/internal\.test resolves to 127\.0\.0\.2, a loopback address/),
    );
    assert.deepEqual(lookup.names, ['internal.test']);
    assert.equal(server.connections, 0);
  });

  it('a name resolving to several addresses is refused when one of them is refused', async () => {
    resetCounts();
    const lookup = fakeLookup({ 'mixed.test': ['127.0.0.1', '127.0.0.2'] });
    const guardedFetch = createGuardedFetch({ allow: ONLY_127_0_0_1, lookup });
    await assert.rejects(
      guardedFetch(`http://mixed.test:${server.port}/x`),
      refusedWith(/mixed\.test resolves to 127\.0\.0\.2, a loopback address/),
    );
    assert.equal(server.connections, 0, 'not even the allowed address was connected to');
  });

  it('a redirect to a refused IP literal is refused without contacting it', async () => {
    resetCounts();
    const guardedFetch = createGuardedFetch({ allow: ONLY_127_0_0_1 });
    const target = `http://127.0.0.2:${server.port}/x`;
    await assert.rejects(
      guardedFetch(`${server.origin}/redirect?to=${encodeURIComponent(target)}`),
      refusedWith(/^refused to fetch http:\/\/127\.0\.0\.2:\d+\/x: 127\.0\.0\.2 is a loopback address/),
    );
    assert.equal(server.connections, 1, 'only the first hop connected');
  });

  it('a redirect to a name resolving to a refused address is refused at lookup', async () => {
    resetCounts();
    const lookup = fakeLookup({ 'internal.test': ['127.0.0.2'] });
    const guardedFetch = createGuardedFetch({ allow: ONLY_127_0_0_1, lookup });
    const target = `http://internal.test:${server.port}/admin`;
    await assert.rejects(
      guardedFetch(`${server.origin}/redirect?to=${encodeURIComponent(target)}`),
      refusedWith(
        /^refused to fetch http:\/\/internal\.test:\d+\/admin: internal\.test resolves to 127\.0\.0\.2/,
      ),
    );
    assert.deepEqual(lookup.names, ['internal.test']);
    assert.equal(server.connections, 1, 'only the first hop connected');
  });

  it('redirect chains within allowed ranges are followed with fetch method and body rules', async () => {
    const guardedFetch = createGuardedFetch({ allow: LOOPBACK_ALLOWED });
    const hop = (status: number, to: string) => `/redirect?status=${status}&to=${encodeURIComponent(to)}`;
    const post = { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } };

    const chain = server.origin + hop(302, hop(307, '/final'));
    const kept = await echoOf(await guardedFetch(chain, { method: 'PUT', body: 'x' }));
    assert.deepEqual(
      [kept.method, kept.path, kept.body],
      ['PUT', '/final', 'x'],
      '302 keeps PUT, 307 keeps it too',
    );

    const resent = await echoOf(await guardedFetch(server.origin + hop(308, '/final'), post));
    assert.deepEqual(
      [resent.method, resent.body, resent.contentType],
      ['POST', '{"a":1}', 'application/json'],
    );

    for (const status of [301, 302, 303]) {
      const changed = await echoOf(await guardedFetch(server.origin + hop(status, '/final'), post));
      assert.deepEqual(
        [changed.method, changed.body, changed.contentType],
        ['GET', '', null],
        `${status} POST → GET`,
      );
    }
    const response = await guardedFetch(server.origin + hop(302, '/final'));
    assert.ok(response instanceof Response, 'a global Response, as callers test with instanceof');
    assert.equal(response.url, `${server.origin}/final`);
    assert.equal(response.redirected, true);
    await response.body?.cancel();
  });

  it('a cross-origin redirect drops the authorization header', async () => {
    const lookup = fakeLookup({ 'tool.test': ['127.0.0.1'] });
    const guardedFetch = createGuardedFetch({ allow: LOOPBACK_ALLOWED, lookup });
    const headers = { authorization: 'Bearer secret' };
    const sameOrigin = await echoOf(await guardedFetch(`${server.origin}/redirect?to=/final`, { headers }));
    assert.equal(sameOrigin.authorization, 'Bearer secret');
    const otherOrigin = `http://tool.test:${server.port}/final`;
    const crossed = await echoOf(
      await guardedFetch(`${server.origin}/redirect?to=${encodeURIComponent(otherOrigin)}`, { headers }),
    );
    assert.equal(crossed.authorization, null);
  });

  it('more redirects than maxRedirects is an error', async () => {
    resetCounts();
    const guardedFetch = createGuardedFetch({ allow: LOOPBACK_ALLOWED, maxRedirects: 2 });
    await assert.rejects(guardedFetch(`${server.origin}/loop`), /fetch failed: more than 2 redirects/);
    assert.equal(server.requests.length, 3);
  });

  it('a response without a body (204, HEAD) is returned as such', async () => {
    const guardedFetch = createGuardedFetch({ allow: LOOPBACK_ALLOWED });
    const empty = await guardedFetch(`${server.origin}/empty`);
    assert.deepEqual([empty.status, empty.body, empty.redirected], [204, null, false]);
    const head = await guardedFetch(`${server.origin}/ok`, { method: 'HEAD' });
    assert.deepEqual(
      [head.status, head.body, head.headers.get('content-type')],
      [200, null, 'application/json'],
    );
  });

  it('redirect modes manual and error behave as in fetch', async () => {
    const guardedFetch = createGuardedFetch({ allow: LOOPBACK_ALLOWED });
    const url = `${server.origin}/redirect?to=${encodeURIComponent('http://127.0.0.2:9/')}`;
    const manual = await guardedFetch(url, { redirect: 'manual' });
    assert.equal(manual.status, 302);
    assert.equal(manual.headers.get('location'), 'http://127.0.0.2:9/');
    await manual.body?.cancel();
    await assert.rejects(guardedFetch(url, { redirect: 'error' }), /unexpected redirect/);
  });

  it('non-http schemes are refused, directly and as a redirect target', async () => {
    const guardedFetch = createGuardedFetch({ allow: LOOPBACK_ALLOWED });
    for (const url of ['file:///etc/passwd', 'data:text/plain,hi', 'ftp://93.184.216.34/x']) {
      await assert.rejects(guardedFetch(url), refusedWith(/only http: and https: URLs are fetched/));
    }
    await assert.rejects(
      guardedFetch(`${server.origin}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`),
      refusedWith(/^refused to fetch file:\/\/\/etc\/passwd: only http: and https:/),
    );
  });

  it('a Request input is fetched with its method, headers and body, init overriding them', async () => {
    const guardedFetch = createGuardedFetch({ allow: LOOPBACK_ALLOWED });
    const request = new Request(`${server.origin}/req`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body: '{"jsonrpc":"2.0"}',
    });
    const echoed = await echoOf(await guardedFetch(request, { headers: { authorization: 'Bearer u' } }));
    assert.deepEqual([echoed.method, echoed.path, echoed.body], ['POST', '/req', '{"jsonrpc":"2.0"}']);
    assert.equal(echoed.authorization, 'Bearer u');
    assert.equal(echoed.contentType, null, 'init headers replace the Request headers, as in fetch');
  });

  it('aborting the signal rejects the fetch and closes the connection the server sees', async () => {
    const guardedFetch = createGuardedFetch({ allow: LOOPBACK_ALLOWED });
    const controller = new AbortController();
    const seen = server.requests.length;
    const pending = guardedFetch(`${server.origin}/hold`, { signal: controller.signal });
    while (server.requests.length === seen) await new Promise((resolve) => setTimeout(resolve, 5));
    const socketClosed = once(server.requests.at(-1)!.socket, 'close');
    controller.abort();
    await assert.rejects(pending, { name: 'AbortError' });
    await socketClosed;
  });

  it('aborting the signal while the body streams errors the body and closes the connection', async () => {
    const guardedFetch = createGuardedFetch({ allow: LOOPBACK_ALLOWED });
    const controller = new AbortController();
    const response = await guardedFetch(`${server.origin}/stream`, { signal: controller.signal });
    const socketClosed = once(server.requests.at(-1)!.socket, 'close');
    const reader = response.body!.getReader();
    assert.equal(new TextDecoder().decode((await reader.read()).value), 'data: first\n\n');
    controller.abort();
    await assert.rejects(reader.read(), { name: 'AbortError' });
    await socketClosed;
  });

  it('the guarded agent refuses a refused IP literal even when used without the guarded fetch', async () => {
    resetCounts();
    const dispatcher = createGuardedAgent({ policy: createAddressPolicy([]) });
    await assert.rejects(
      undiciRequest(`${server.origin}/x`, { dispatcher }),
      refusedWith(/127\.0\.0\.1 is a loopback address/),
    );
    assert.equal(server.connections, 0);
    await dispatcher.close();
  });
});

describe('fetchRefusal', () => {
  it('finds a FetchRefusedError through cause chains and aggregate errors', () => {
    const refused = new FetchRefusedError('http://10.0.0.5/x', '10.0.0.5 is a private address');
    assert.equal(fetchRefusal(refused), refused);
    assert.equal(fetchRefusal(new TypeError('fetch failed', { cause: refused })), refused);
    assert.equal(
      fetchRefusal(new Error('outer', { cause: new AggregateError([new Error('a'), refused]) })),
      refused,
    );
    assert.equal(
      fetchRefusal(new TypeError('fetch failed', { cause: new Error('ECONNREFUSED') })),
      undefined,
    );
    assert.equal(fetchRefusal('not an error'), undefined);
  });
});
