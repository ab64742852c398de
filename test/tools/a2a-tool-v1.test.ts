import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { A2aToolRef } from '../../src/domain/tool-ref.ts';
import type { ServerToolCallContext } from '../../src/engine/ports.ts';
import { a2aTool } from '../../src/tools/a2a/a2a-tool.ts';
import {
  AGENT_CARD_PATH,
  echoOf,
  startA2aTestPeer,
  type A2aTestPeer,
  type A2aTestPeerOptions,
} from '../support/a2a-test-peer.ts';

const deps = { fetch: globalThis.fetch };

function context(): ServerToolCallContext {
  return { runId: 'run_a2a', workspaceId: 'ws_a2a', agentId: null, signal: new AbortController().signal };
}

function ref(agentCardUrl: string, extra: Partial<A2aToolRef> = {}): A2aToolRef {
  return { kind: 'a2a', name: 'helper', agentCardUrl, ...extra };
}

const posts = (peer: A2aTestPeer) => peer.requests.filter((request) => request.body !== undefined);

describe(
  'a2a tool: A2A 1.0 to a peer whose card offers a 1.0 interface, 0.3 otherwise',
  { timeout: 60_000 },
  () => {
    const peers: A2aTestPeer[] = [];
    afterEach(async () => {
      await Promise.all(peers.splice(0).map((peer) => peer.close()));
    });
    async function peer(options: A2aTestPeerOptions): Promise<A2aTestPeer> {
      const started = await startA2aTestPeer(options);
      peers.push(started);
      return started;
    }

    it('a 1.0 card (supportedInterfaces, JSON-RPC 1.0): the call is SendMessage in 1.0 shapes with A2A-Version: 1.0, and the text reply is the result', async () => {
      const v1 = await peer({ rpcPath: '/a2a', card: true, version: '1.0' });
      const { handler } = a2aTool(ref(`${v1.origin}${AGENT_CARD_PATH}`), deps);
      assert.deepEqual(await handler({ message: 'plan a trip' }, context()), {
        ok: true,
        text: echoOf('plan a trip'),
      });
      assert.deepEqual(
        v1.requests.map((request) => `${request.method} ${request.path}`),
        [`GET ${AGENT_CARD_PATH}`, 'POST /a2a'],
      );
      assert.equal(
        v1.requests[0]?.headers['a2a-version'],
        '1.0',
        'the card is asked for as a 1.0 client does',
      );
      const [post] = posts(v1);
      assert.equal(post?.body?.method, 'SendMessage');
      assert.equal(post?.headers['a2a-version'], '1.0');
      const params = post?.body?.params as { message: Record<string, unknown> };
      assert.equal(params.message.role, 'ROLE_USER');
      assert.equal(params.message.kind, undefined);
      assert.deepEqual(params.message.parts, [{ text: 'plan a trip', mediaType: 'text/plain' }]);
    });

    it('a v0.3 card (url, no 1.0 interface): the call is message/send in v0.3 shapes', async () => {
      const v03 = await peer({ rpcPath: '/a2a', card: true });
      const { handler } = a2aTool(ref(`${v03.origin}${AGENT_CARD_PATH}`), deps);
      assert.deepEqual(await handler({ message: 'hi' }, context()), { ok: true, text: echoOf('hi') });
      const [post] = posts(v03);
      assert.equal(post?.body?.method, 'message/send');
      assert.equal(post?.headers['a2a-version'], '0.3');
    });

    it("1.0: a Task result's artifact text becomes the result; a failed task is ok:false with its reason", async () => {
      const tasks = await peer({ rpcPath: '/', card: true, version: '1.0', behavior: 'task' });
      const done = a2aTool(ref(`${tasks.origin}${AGENT_CARD_PATH}`), deps);
      assert.deepEqual(await done.handler({ message: 'book it' }, context()), {
        ok: true,
        text: 'artifact for: book it',
      });
      const failing = await peer({ rpcPath: '/', card: true, version: '1.0', behavior: 'fail' });
      const failed = a2aTool(ref(`${failing.origin}${AGENT_CARD_PATH}`), deps);
      assert.deepEqual(await failed.handler({ message: 'x' }, context()), {
        ok: false,
        text: 'A2A peer helper failed the task: the peer could not do it',
      });
    });

    it('1.0: contextId threads every call into one remote context', async () => {
      const v1 = await peer({ rpcPath: '/', card: true, version: '1.0' });
      const { handler } = a2aTool(ref(`${v1.origin}${AGENT_CARD_PATH}`, { contextId: 'ctx-trip-42' }), deps);
      await handler({ message: 'one' }, context());
      await handler({ message: 'two' }, context());
      assert.deepEqual(v1.contexts, ['ctx-trip-42', 'ctx-trip-42']);
    });

    it('1.0: a JSON-RPC error from the peer is ok:false with its message', async () => {
      const broken = await peer({ rpcPath: '/', card: true, version: '1.0', behavior: 'rpc-error' });
      const { handler } = a2aTool(ref(`${broken.origin}${AGENT_CARD_PATH}`), deps);
      const outcome = await handler({ message: 'x' }, context());
      assert.equal(outcome.ok, false);
      assert.match(outcome.text, /the peer is out of order/);
    });
  },
);
