import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import type { A2aToolRef } from '../../src/domain/tool-ref.ts';
import type { ServerToolCallContext } from '../../src/engine/ports.ts';
import { A2A_MESSAGE_SCHEMA } from '../../src/tools/a2a-local/a2a-local-tool.ts';
import { a2aTool } from '../../src/tools/a2a/a2a-tool.ts';
import type { GuardedFetch } from '../../src/tools/server-tool.ts';
import {
  AGENT_CARD_PATH,
  echoOf,
  startA2aTestPeer,
  type A2aTestPeer,
  type A2aTestPeerOptions,
} from '../support/a2a-test-peer.ts';
import { eventually, withCap } from '../support/waits.ts';

const deps = { fetch: globalThis.fetch };
/** An abort must end the call this fast, far above what a loaded machine needs to close a socket. */
const PROMPT_MS = 5_000;

function context(signal: AbortSignal = new AbortController().signal): ServerToolCallContext {
  return { runId: 'run_a2a', workspaceId: 'ws_a2a', agentId: null, signal };
}

function ref(agentCardUrl: string, extra: Partial<A2aToolRef> = {}): A2aToolRef {
  return { kind: 'a2a', name: 'helper', agentCardUrl, ...extra };
}

/** `METHOD /path` of every request the peer saw, in order. */
function seen(peer: A2aTestPeer): string[] {
  return peer.requests.map((request) => `${request.method} ${request.path}`);
}

describe('a2a tool: a remote peer agent over A2A v0.3', { timeout: 60_000 }, () => {
  const peers: A2aTestPeer[] = [];
  afterEach(async () => {
    await Promise.all(peers.splice(0).map((peer) => peer.close()));
  });

  async function peer(options: A2aTestPeerOptions): Promise<A2aTestPeer> {
    const started = await startA2aTestPeer(options);
    peers.push(started);
    return started;
  }

  it('the model sees kind a2a, the ref name, one message argument and the default description', () => {
    const { tool } = a2aTool(ref('http://127.0.0.1:9/'), deps);
    assert.deepEqual(tool, {
      kind: 'a2a',
      name: 'helper',
      description: 'Delegate a task to the helper agent over A2A, passing the full task as a single message.',
      inputSchema: { ...A2A_MESSAGE_SCHEMA },
      readOnly: false,
      retain: false,
      callExtras: {},
    });
  });

  it('an explicit description replaces the default', () => {
    const { tool } = a2aTool(ref('http://127.0.0.1:9/', { description: 'Books flights.' }), deps);
    assert.equal(tool.description, 'Books flights.');
  });

  it('nothing is fetched until the first call', async () => {
    const root = await peer({ rpcPath: '/' });
    a2aTool(ref(`${root.origin}/`), deps);
    assert.deepEqual(root.requests, []);
  });

  it('a call sends message/send with v0.3 shapes and the peer text reply becomes the result', async () => {
    const root = await peer({ rpcPath: '/' });
    const { handler } = a2aTool(ref(`${root.origin}/`), deps);
    assert.deepEqual(await handler({ message: 'plan a trip' }, context()), {
      ok: true,
      text: echoOf('plan a trip'),
    });
    const post = root.requests.find((request) => request.body !== undefined);
    const body = post?.body;
    assert.equal(body?.jsonrpc, '2.0');
    assert.equal(body?.method, 'message/send');
    const params = body?.params as { message: Record<string, unknown>; configuration: unknown };
    assert.equal(params.message.kind, 'message');
    assert.equal(params.message.role, 'user');
    assert.deepEqual(params.message.parts, [{ kind: 'text', text: 'plan a trip' }]);
    assert.equal(typeof params.message.messageId, 'string');
    assert.notEqual(params.message.messageId, '');
    assert.deepEqual(params.configuration, {
      blocking: true,
      acceptedOutputModes: [],
    });
    assert.equal(post?.headers['a2a-version'], '0.3', 'the SDK client announces v0.3');
  });

  it('an Agent Card URL resolves to the JSON-RPC endpoint named by its url', async () => {
    const carded = await peer({ rpcPath: '/', card: true });
    const { handler } = a2aTool(ref(`${carded.origin}${AGENT_CARD_PATH}`), deps);
    assert.deepEqual(await handler({ message: 'hi' }, context()), { ok: true, text: echoOf('hi') });
    assert.deepEqual(seen(carded), [`GET ${AGENT_CARD_PATH}`, 'POST /']);
  });

  it('a URL that is not a card is probed as the JSON-RPC root first', async () => {
    const root = await peer({ rpcPath: '/' });
    const { handler } = a2aTool(ref(`${root.origin}/`), deps);
    assert.deepEqual(await handler({ message: 'hi' }, context()), { ok: true, text: echoOf('hi') });
    assert.deepEqual(seen(root), ['GET /', 'POST /']);
  });

  it('a peer answering only on /rpc is found there', async () => {
    const rpc = await peer({ rpcPath: '/rpc' });
    const { handler } = a2aTool(ref(rpc.origin), deps);
    assert.deepEqual(await handler({ message: 'hi' }, context()), { ok: true, text: echoOf('hi') });
    assert.deepEqual(seen(rpc), ['GET /', 'POST /', 'POST /rpc']);
  });

  it('a peer answering only on /message/send is found there, after /rpc and /message:send', async () => {
    const legacy = await peer({ rpcPath: '/message/send' });
    const { handler } = a2aTool(ref(`${legacy.origin}/`), deps);
    assert.deepEqual(await handler({ message: 'hi' }, context()), { ok: true, text: echoOf('hi') });
    assert.deepEqual(seen(legacy), [
      'GET /',
      'POST /',
      'POST /rpc',
      'POST /message:send',
      'POST /message/send',
    ]);
  });

  it('probing keeps the path of the root: candidates are under it', async () => {
    const nested = await peer({ rpcPath: '/agents/helper/rpc' });
    const { handler } = a2aTool(ref(`${nested.origin}/agents/helper/`), deps);
    assert.deepEqual(await handler({ message: 'hi' }, context()), { ok: true, text: echoOf('hi') });
    assert.deepEqual(seen(nested).at(-1), 'POST /agents/helper/rpc');
  });

  it('the resolved endpoint is kept: later calls neither fetch the card nor probe again', async () => {
    const legacy = await peer({ rpcPath: '/message/send' });
    const { handler } = a2aTool(ref(legacy.origin), deps);
    await handler({ message: 'one' }, context());
    const before = legacy.requests.length;
    assert.deepEqual(await handler({ message: 'two' }, context()), { ok: true, text: echoOf('two') });
    assert.deepEqual(seen(legacy).slice(before), ['POST /message/send']);

    const carded = await peer({ rpcPath: '/', card: true });
    const viaCard = a2aTool(ref(`${carded.origin}${AGENT_CARD_PATH}`), deps);
    await viaCard.handler({ message: 'one' }, context());
    await viaCard.handler({ message: 'two' }, context());
    assert.deepEqual(seen(carded), [`GET ${AGENT_CARD_PATH}`, 'POST /', 'POST /']);
  });

  it('headers are forwarded on every request: card fetch, probes and calls', async () => {
    const headers = { authorization: 'Bearer peer-token', 'x-tenant': 'acme' };
    const legacy = await peer({ rpcPath: '/message/send' });
    const probed = a2aTool(ref(legacy.origin, { headers }), deps);
    await probed.handler({ message: 'one' }, context());
    await probed.handler({ message: 'two' }, context());
    const carded = await peer({ rpcPath: '/', card: true });
    const viaCard = a2aTool(ref(`${carded.origin}${AGENT_CARD_PATH}`, { headers }), deps);
    await viaCard.handler({ message: 'one' }, context());

    const requests = [...legacy.requests, ...carded.requests];
    assert.equal(requests.length, 6 + 2);
    for (const request of requests) {
      assert.equal(request.headers.authorization, 'Bearer peer-token', `${request.method} ${request.path}`);
      assert.equal(request.headers['x-tenant'], 'acme', `${request.method} ${request.path}`);
    }
    const post = legacy.requests.at(-1);
    assert.equal(post?.headers['content-type'], 'application/json', 'the SDK keeps its own content type');
  });

  it('headers go only to the origin of agentCardUrl: a card naming an endpoint on another origin is called without them, with a warn log', async () => {
    const headers = { authorization: 'Bearer peer-token', 'x-tenant': 'acme' };
    const remote = await peer({ rpcPath: '/' });
    const carded = await peer({ rpcPath: '/', card: true, cardEndpoint: `${remote.origin}/` });
    const warnings: Array<{ fields: object; message: string }> = [];
    const logger = { warn: (fields: object, message: string) => void warnings.push({ fields, message }) };
    const { handler } = a2aTool(ref(`${carded.origin}${AGENT_CARD_PATH}`, { headers }), { ...deps, logger });
    assert.deepEqual(await handler({ message: 'one' }, context()), { ok: true, text: echoOf('one') });
    assert.deepEqual(await handler({ message: 'two' }, context()), { ok: true, text: echoOf('two') });

    assert.deepEqual(seen(carded), [`GET ${AGENT_CARD_PATH}`]);
    assert.equal(
      carded.requests[0]?.headers.authorization,
      'Bearer peer-token',
      'the named origin gets them',
    );
    assert.deepEqual(seen(remote), ['POST /', 'POST /']);
    for (const request of remote.requests) {
      assert.equal(request.headers.authorization, undefined, 'no credential leaves the named origin');
      assert.equal(request.headers['x-tenant'], undefined);
      assert.equal(request.headers['a2a-version'], '0.3', "the SDK's own headers still go");
    }
    assert.equal(warnings.length, 1, 'warned once, when the endpoint was found');
    assert.deepEqual(warnings[0]?.fields, {
      tool: 'helper',
      cardOrigin: carded.origin,
      endpointOrigin: remote.origin,
    });
    assert.match(warnings[0]?.message ?? '', /another origin.*without the tool’s headers/);
  });

  it('headers go only to the origin of agentCardUrl: a same-origin card endpoint still gets them, and nothing is logged', async () => {
    const headers = { authorization: 'Bearer peer-token' };
    const carded = await peer({ rpcPath: '/rpc', card: true });
    const warnings: object[] = [];
    const logger = { warn: (fields: object) => void warnings.push(fields) };
    const { handler } = a2aTool(ref(`${carded.origin}${AGENT_CARD_PATH}`, { headers }), { ...deps, logger });
    assert.deepEqual(await handler({ message: 'hi' }, context()), { ok: true, text: echoOf('hi') });
    assert.deepEqual(seen(carded), [`GET ${AGENT_CARD_PATH}`, 'POST /rpc']);
    for (const request of carded.requests) assert.equal(request.headers.authorization, 'Bearer peer-token');
    assert.deepEqual(warnings, []);
  });

  it('headers go only to the origin of agentCardUrl: a card URL redirecting to another origin is followed without them', async () => {
    const headers = { 'x-api-key': 'peer-secret' };
    const elsewhere = await peer({ rpcPath: '/', card: true });
    const seenByRedirector: Array<string | undefined> = [];
    const redirector = createServer((req, res) => {
      seenByRedirector.push(req.headers['x-api-key'] as string | undefined);
      res.writeHead(302, { location: `${elsewhere.origin}${AGENT_CARD_PATH}` }).end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    try {
      const origin = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
      const { handler } = a2aTool(ref(`${origin}${AGENT_CARD_PATH}`, { headers }), deps);
      assert.deepEqual(await handler({ message: 'hi' }, context()), { ok: true, text: echoOf('hi') });
      assert.deepEqual(seenByRedirector, ['peer-secret'], 'the named origin got them');
      assert.deepEqual(seen(elsewhere), [`GET ${AGENT_CARD_PATH}`, 'POST /']);
      for (const request of elsewhere.requests) assert.equal(request.headers['x-api-key'], undefined);
    } finally {
      redirector.closeAllConnections();
      await new Promise<void>((resolve) => redirector.close(() => resolve()));
    }
  });

  it('contextId threads every call into one remote context', async () => {
    const root = await peer({ rpcPath: '/' });
    const { handler } = a2aTool(ref(root.origin, { contextId: 'ctx-trip-42' }), deps);
    await handler({ message: 'one' }, context());
    await handler({ message: 'two' }, context());
    assert.deepEqual(root.contexts, ['ctx-trip-42', 'ctx-trip-42']);
    const sent = root.requests.flatMap((request) => (request.body ? [request.body] : []));
    for (const body of sent) {
      assert.equal((body.params as { message: { contextId?: string } }).message.contextId, 'ctx-trip-42');
    }
  });

  it('without contextId each call gets a fresh context', async () => {
    const root = await peer({ rpcPath: '/' });
    const { handler } = a2aTool(ref(root.origin), deps);
    await handler({ message: 'one' }, context());
    await handler({ message: 'two' }, context());
    assert.equal(root.contexts.length, 2);
    assert.ok(root.contexts.every((id) => id !== ''));
    assert.notEqual(root.contexts[0], root.contexts[1]);
  });

  it("a Task result's artifact text becomes the result", async () => {
    const tasks = await peer({ rpcPath: '/', behavior: 'task' });
    const { handler } = a2aTool(ref(tasks.origin), deps);
    assert.deepEqual(await handler({ message: 'book it' }, context()), {
      ok: true,
      text: 'artifact for: book it',
    });
    const answered = tasks.requests.find((request) => request.body !== undefined);
    assert.equal(answered?.body?.method, 'message/send');
  });

  it('a task the peer failed is ok:false with its reason', async () => {
    const failing = await peer({ rpcPath: '/', behavior: 'fail' });
    const { handler } = a2aTool(ref(failing.origin), deps);
    assert.deepEqual(await handler({ message: 'x' }, context()), {
      ok: false,
      text: 'A2A peer helper failed the task: the peer could not do it',
    });
  });

  it('a task waiting for input is ok, with the question and a note that the peer needs more input', async () => {
    const asking = await peer({ rpcPath: '/', behavior: 'input-required' });
    const { handler } = a2aTool(ref(asking.origin), deps);
    const outcome = await handler({ message: 'weather' }, context());
    assert.equal(outcome.ok, true);
    assert.match(outcome.text, /^which city\?/);
    assert.match(outcome.text, /needs more input/);
  });

  it('a JSON-RPC error from the peer is ok:false with its message', async () => {
    const broken = await peer({ rpcPath: '/', behavior: 'rpc-error' });
    const { handler } = a2aTool(ref(broken.origin), deps);
    const outcome = await handler({ message: 'x' }, context());
    assert.equal(outcome.ok, false);
    assert.match(outcome.text, /^A2A peer helper failed: .*the peer is out of order/);
    // A JSON-RPC answer resolves the endpoint: the root, not the next candidates.
    assert.deepEqual(seen(broken), ['GET /', 'POST /']);
  });

  it('an unreachable peer is ok:false', async () => {
    const port = await closedPort();
    const { handler } = a2aTool(ref(`http://127.0.0.1:${port}/`), deps);
    const outcome = await handler({ message: 'x' }, context());
    assert.equal(outcome.ok, false);
    assert.match(outcome.text, /^A2A peer helper failed: .*ECONNREFUSED/);
  });

  it('a fetch refused by the guard is ok:false with its reason', async () => {
    const refused: GuardedFetch = async () => {
      throw new Error('the address 10.0.0.1 is not allowed');
    };
    const { handler } = a2aTool(ref('http://peer.internal/'), { fetch: refused });
    assert.deepEqual(await handler({ message: 'x' }, context()), {
      ok: false,
      text: 'A2A peer helper failed: the address 10.0.0.1 is not allowed',
    });
  });

  it('a URL where no candidate speaks JSON-RPC is ok:false naming what was tried', async () => {
    const nowhere = await peer({ rpcPath: '/elsewhere' });
    const { handler } = a2aTool(ref(nowhere.origin), deps);
    const outcome = await handler({ message: 'x' }, context());
    assert.equal(outcome.ok, false);
    assert.match(outcome.text, /^A2A peer helper failed: no A2A JSON-RPC endpoint found/);
    assert.match(outcome.text, /\/message\/send answered HTTP 404/);
  });

  it("an abort rejects promptly with the signal's reason and the peer sees the request end", async () => {
    const hanging = await peer({ rpcPath: '/', behavior: 'hang' });
    const { handler } = a2aTool(ref(hanging.origin), deps);
    const controller = new AbortController();
    const call = handler({ message: 'wait forever' }, context(controller.signal));
    await eventually(() => hanging.contexts.length === 1, 'the peer runs the message');
    const reason = new Error('run cancelled');
    controller.abort(reason);
    await assert.rejects(
      withCap(call, PROMPT_MS, () => `the call did not reject within ${PROMPT_MS} ms of the abort`),
      (error) => error === reason,
    );
    await eventually(() => hanging.abandoned === 1, 'the peer sees the request end');
  });
});

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
