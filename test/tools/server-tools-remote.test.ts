import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startA2aTestPeer, echoOf, AGENT_CARD_PATH, type A2aTestPeer } from '../support/a2a-test-peer.ts';
import { startMcpTestServer, type McpTestServer } from '../support/mcp-test-server.ts';
import { freePort } from '../support/mcp-test-server.ts';
import { startRunFixture, types, type RunFixture } from '../support/run-fixture.ts';
import { eventually } from '../support/waits.ts';
import { ofType, toolResultBlocks, toolResultText, toolsByName } from './tool-support.ts';

const LOOPBACK = { AGENT_RUNS_FETCH_ALLOW: '127.0.0.0/8,::1/128' };

describe('server-resolved tools in a run: mcp and a2a peers on loopback', { timeout: 60_000 }, () => {
  let fixture: RunFixture;
  let mcp: McpTestServer;
  let peer: A2aTestPeer;
  before(async () => {
    mcp = await startMcpTestServer();
    peer = await startA2aTestPeer({ rpcPath: '/', card: true });
    fixture = await startRunFixture('anthropic-messages', { env: LOOPBACK });
  });
  after(async () => {
    await fixture.close();
    await mcp.close();
    await peer.close();
  });
  afterEach(() => fixture.cleanUp());

  it('mcp: the catalog listed at run start is offered as <name>_<tool> (toolFilter applied, headers forwarded), a call streams tool_call/tool_result, and the session is closed when the run ends', async () => {
    const before = mcp.deletedSessions.length;
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_e', name: 'docs_echo', input: { text: 'hello' } }] },
      { text: ['Echoed.'] },
    );
    const { frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'echo hello',
      tools: [
        {
          kind: 'mcp',
          name: 'docs',
          url: mcp.url,
          headers: { authorization: 'Bearer mcp-secret' },
          toolFilter: ['echo', 'lookup'],
        },
      ],
    });
    assert.equal(types(frames).at(-1), 'result');
    const offered = toolsByName(fixture.fake.requests[0]);
    assert.deepEqual([...offered.keys()].sort(), ['docs_echo', 'docs_lookup']);
    assert.equal(
      offered.get('docs_echo')?.input_schema?.required?.[0],
      'text',
      'the input schema is forwarded',
    );
    assert.deepEqual(ofType(frames, 'tool_call')[0]?.data.data, {
      toolUseId: 'toolu_e',
      name: 'docs_echo',
      input: { text: 'hello' },
    });
    assert.equal(ofType(frames, 'tool_result')[0]?.data.data.ok, true);
    assert.match(toolResultText(toolResultBlocks(fixture.fake.requests[1])[0]), /hello/);
    assert.ok(mcp.requests.length > 0);
    for (const request of mcp.requests.slice(-3)) {
      assert.equal(request.headers.authorization, 'Bearer mcp-secret', 'headers on every request');
    }
    await eventually(() => mcp.deletedSessions.length > before, 'the run closed its MCP session');
  });

  it('mcp: an isError result reaches the model as a tool error', async () => {
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_x', name: 'docs_fail', input: {} }] },
      { text: ['It failed.'] },
    );
    const { frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'p',
      tools: [{ kind: 'mcp', name: 'docs', url: mcp.url, toolFilter: ['fail'] }],
    });
    assert.equal(ofType(frames, 'tool_result')[0]?.data.data.ok, false);
    assert.equal(toolResultBlocks(fixture.fake.requests[1])[0]?.is_error, true);
  });

  it('mcp: an unreachable server at run start exposes the single stub <name>_unavailable and the run still completes', async () => {
    const port = await freePort();
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_u', name: 'gone_unavailable', input: {} }] },
      { text: ['The docs server is down.'] },
    );
    const { frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'p',
      tools: [{ kind: 'mcp', name: 'gone', url: `http://127.0.0.1:${port}/mcp` }],
    });
    assert.deepEqual([...toolsByName(fixture.fake.requests[0]).keys()], ['gone_unavailable']);
    assert.equal(types(frames).at(-1), 'result');
    assert.equal(ofType(frames, 'tool_result')[0]?.data.data.ok, false);
  });

  it('mcp: cancel reaches the tool server (its call is cancelled and its connection closes) and the run ends cancelled', async () => {
    const slowBefore = mcp.slowCalls.length;
    fixture.fake.enqueue({ toolCalls: [{ id: 'toolu_s', name: 'docs_slow', input: {} }] });
    const run = await fixture.startRun({
      systemPrompt: 's',
      prompt: 'p',
      tools: [{ kind: 'mcp', name: 'docs', url: mcp.url, toolFilter: ['slow'] }],
    });
    await run.waitForType('tool_call');
    await eventually(
      () => mcp.slowCalls.slice(slowBefore).some((call) => call.started),
      'the slow call started',
    );
    const cancelled = await fixture.server.request('POST', `${fixture.ws}/agent-runs/${run.runId}/cancel`, {
      headers: fixture.headers,
    });
    assert.equal(cancelled.status, 200);
    const frames = await run.ended;
    assert.equal(types(frames).at(-1), 'cancelled');
    const call = mcp.slowCalls[slowBefore];
    await eventually(() => call?.cancelled === true, 'the MCP server saw the cancellation');
    await eventually(() => call?.connectionClosed === true, "the call's connection closed");
  });

  it('a2a: the model sees one { message } argument and the default description; the peer reply is the tool result', async () => {
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_a', name: 'researcher', input: { message: 'find x' } }] },
      { text: ['Done.'] },
    );
    const { frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'p',
      tools: [{ kind: 'a2a', name: 'researcher', agentCardUrl: `${peer.origin}${AGENT_CARD_PATH}` }],
    });
    const tool = toolsByName(fixture.fake.requests[0]).get('researcher');
    assert.deepEqual(Object.keys(tool?.input_schema?.properties ?? {}), ['message']);
    assert.match(tool?.description, /researcher agent over A2A/);
    assert.equal(types(frames).at(-1), 'result');
    assert.equal(ofType(frames, 'tool_result')[0]?.data.data.ok, true);
    assert.equal(toolResultText(toolResultBlocks(fixture.fake.requests[1])[0]), echoOf('find x'));
  });
});
