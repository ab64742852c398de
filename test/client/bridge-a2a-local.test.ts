import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { A2aLocalBridge, LocalToolDispatcher, type RunEvent } from '@agent-runs/client';
import {
  AGENT_CARD_PATH,
  echoOf,
  startA2aTestPeer,
  type A2aTestPeer,
  type PeerBehavior,
} from '../support/a2a-test-peer.ts';
import { withCap, WAIT_CAP_MS } from '../support/waits.ts';
import { ECHO_MODEL, startClientFixture, type ClientFixture } from './client-fixture.ts';

describe('A2aLocalBridge', () => {
  let fixture: ClientFixture;
  const peers: A2aTestPeer[] = [];

  before(async () => {
    fixture = await startClientFixture('a2a-local');
  });
  afterEach(async () => {
    await Promise.allSettled(peers.splice(0).map((peer) => peer.close()));
  });
  after(() => fixture.close());

  async function peer(behavior: PeerBehavior = 'echo'): Promise<A2aTestPeer> {
    const started = await startA2aTestPeer({ rpcPath: '/a2a/rpc', card: true, behavior });
    peers.push(started);
    return started;
  }

  async function runWith(tools: LocalToolDispatcher, prompt: string) {
    const events: RunEvent[] = [];
    const outcome = await withCap(
      fixture.client.runs.run(
        { systemPrompt: 'You delegate.', modelId: ECHO_MODEL, prompt, tools: tools.toolRefs() },
        { tools, onEvent: (event) => void events.push(event) },
      ),
      WAIT_CAP_MS,
      () => `the run of '${prompt}' did not end`,
    );
    const answer = events.find((event) => event.type === 'local_tool_result_in');
    return {
      outcome,
      text: outcome.type === 'result' ? outcome.result.text : `(${outcome.type})`,
      answer: answer?.type === 'local_tool_result_in' ? answer.data : undefined,
      events,
    };
  }

  it('builds the a2a_local ref with the card as the peer serves it', async () => {
    const echo = await peer();
    const served = (await (await fetch(`${echo.origin}${AGENT_CARD_PATH}`)).json()) as Record<
      string,
      unknown
    >;
    const bridge = await A2aLocalBridge.fromCardUrl(`${echo.origin}${AGENT_CARD_PATH}`, {
      name: 'test_peer',
    });
    assert.deepEqual(bridge.toolRef(), { kind: 'a2a_local', name: 'test_peer', agentCard: served });
    const fromOrigin = await A2aLocalBridge.fromCardUrl(echo.origin, { name: 'test_peer' });
    assert.deepEqual(fromOrigin.agentCard, served, 'a bare origin means its well-known card');

    const described = await A2aLocalBridge.fromCardUrl(`${echo.origin}${AGENT_CARD_PATH}`, {
      name: 'test_peer',
      description: 'Ask the test peer.',
    });
    assert.equal(described.toolRef().description, 'Ask the test peer.');
  });

  it("answers a call by message/send to the peer (v0.3), with the reply's text as the result", async () => {
    const echo = await peer();
    const tools = new LocalToolDispatcher();
    tools.bridge(await A2aLocalBridge.fromCardUrl(`${echo.origin}${AGENT_CARD_PATH}`, { name: 'test_peer' }));
    const { text, events } = await runWith(tools, 'call test_peer {"message":"what is the weather?"}');
    assert.equal(text, `Tool test_peer returned: ${echoOf('what is the weather?')}`);

    const call = events.find((event) => event.type === 'local_tool_call');
    assert.equal(call?.type === 'local_tool_call' && call.data.kind, 'a2a_local');
    const sends = echo.requests.filter((request) => request.method === 'POST');
    assert.equal(sends.length, 1);
    assert.equal(sends[0]?.path, '/a2a/rpc');
    assert.equal(sends[0]?.body?.method, 'message/send', 'the v0.3 method name');
  });

  it('sends its headers on the card fetch and on every A2A request', async () => {
    const echo = await peer();
    const tools = new LocalToolDispatcher();
    tools.bridge(
      await A2aLocalBridge.fromCardUrl(`${echo.origin}${AGENT_CARD_PATH}`, {
        name: 'private_peer',
        headers: { 'x-peer-token': 'only-the-client-has-it' },
      }),
    );
    const { text } = await runWith(tools, 'call private_peer {"message":"ping"}');
    assert.equal(text, `Tool private_peer returned: ${echoOf('ping')}`);
    assert.deepEqual(
      echo.requests.map((request) => [request.method, request.headers['x-peer-token']]),
      [
        ['GET', 'only-the-client-has-it'],
        ['POST', 'only-the-client-has-it'],
      ],
    );
  });

  it("answers with a completed task's artifact text", async () => {
    const tasks = await peer('task');
    const tools = new LocalToolDispatcher();
    tools.bridge(
      await A2aLocalBridge.fromCardUrl(`${tasks.origin}${AGENT_CARD_PATH}`, { name: 'task_peer' }),
    );
    const { text } = await runWith(tools, 'call task_peer {"message":"summarize"}');
    assert.equal(text, 'Tool task_peer returned: artifact for: summarize');
  });

  it('answers a failed task with an error', async () => {
    const failing = await peer('fail');
    const tools = new LocalToolDispatcher();
    tools.bridge(
      await A2aLocalBridge.fromCardUrl(`${failing.origin}${AGENT_CARD_PATH}`, { name: 'failing_peer' }),
    );
    const { answer } = await runWith(tools, 'call failing_peer {"message":"try"}');
    assert.deepEqual(answer, {
      toolUseId: answer?.toolUseId,
      output: 'A2A peer test-peer failed the task: the peer could not do it',
      isError: true,
    });
  });

  it('answers a peer that fails the JSON-RPC call with an error', async () => {
    const broken = await peer('rpc-error');
    const tools = new LocalToolDispatcher();
    tools.bridge(
      await A2aLocalBridge.fromCardUrl(`${broken.origin}${AGENT_CARD_PATH}`, { name: 'broken_peer' }),
    );
    const { outcome, answer } = await runWith(tools, 'call broken_peer {"message":"hello"}');
    assert.equal(outcome.type, 'result');
    assert.equal(answer?.isError, true);
    assert.match(answer?.output ?? '', /out of order/);
  });

  it('routes a call whose echoed card is this peer, under another tool name', async () => {
    const echo = await peer();
    const bridge = await A2aLocalBridge.fromCardUrl(`${echo.origin}${AGENT_CARD_PATH}`, {
      name: 'test_peer',
    });
    const tools = new LocalToolDispatcher();
    tools.bridge(bridge);
    // A ref for the same card declared by hand under another name (e.g. a session's stored spec).
    const { text } = await withCap(
      (async () => {
        const events: RunEvent[] = [];
        const outcome = await fixture.client.runs.run(
          {
            systemPrompt: 's',
            modelId: ECHO_MODEL,
            prompt: 'call old_name {"message":"hi"}',
            tools: [{ kind: 'a2a_local', name: 'old_name', agentCard: bridge.agentCard }],
          },
          { tools, onEvent: (event) => void events.push(event) },
        );
        return { text: outcome.type === 'result' ? outcome.result.text : '' };
      })(),
      WAIT_CAP_MS,
      () => 'the run did not end',
    );
    assert.equal(text, `Tool old_name returned: ${echoOf('hi')}`);
  });

  it('refuses a card URL that does not answer with a card', async () => {
    const echo = await peer();
    await assert.rejects(
      A2aLocalBridge.fromCardUrl(`${echo.origin}/nowhere.json`, { name: 'nobody' }),
      /HTTP 404/,
    );
  });
});
