import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { A2aJsonRpcError, type AgentRunsClient } from '@agent-runs/client';
import { ECHO_MODEL, startClientFixture, type ClientFixture } from './client-fixture.ts';

describe('client.hostedAgents: a workspace agent as an A2A peer', () => {
  let fixture: ClientFixture;
  let client: AgentRunsClient;
  before(async () => {
    fixture = await startClientFixture('sdk-a2a');
    client = fixture.client;
    const agent = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/agents`, {
      name: 'Echo',
      slug: 'echo',
      systemPrompt: 'Repeat the user.',
      modelId: ECHO_MODEL,
    });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
  });
  after(() => fixture.close());

  it("card() returns the agent's card, whose url is the JSON-RPC endpoint", async () => {
    const card = await client.hostedAgents.card('echo');
    assert.equal(card.name, 'Echo');
    assert.equal(card.preferredTransport, 'JSONRPC');
    assert.equal(new URL(card.url).pathname, client.hostedAgents.endpointPath('echo'));
  });

  it('send() answers with the reply text, a contextId and the usage triple', async () => {
    const reply = await client.hostedAgents.send('echo', 'hello there');
    assert.equal(reply.kind, 'message');
    assert.equal(reply.role, 'agent');
    assert.match(reply.text, /hello there/);
    assert.notEqual(reply.contextId, '');
    assert.equal(reply.usage?.model.id, ECHO_MODEL);
    assert.ok((reply.usage?.turns ?? 0) >= 1);
  });

  it("send() with the reply's contextId continues the same session", async () => {
    const first = await client.hostedAgents.send('echo', 'first message');
    const second = await client.hostedAgents.send('echo', {
      text: 'second message',
      contextId: first.contextId,
    });
    assert.equal(second.contextId, first.contextId);
    const sessions = await client.sessions.list({ metadata: { 'a2a.contextId': first.contextId } });
    assert.equal(sessions.total, 1);
    const replay = await client.sessions.events(sessions.sessions[0]!.sessionId);
    assert.deepEqual(
      replay.events.filter((frame) => frame.type === 'user_message').map((frame) => frame.text),
      ['first message', 'second message'],
    );
  });

  it('an unknown agent throws A2aJsonRpcError with the JSON-RPC code', async () => {
    await assert.rejects(client.hostedAgents.send('nobody', 'hi'), (error: unknown) => {
      assert.ok(error instanceof A2aJsonRpcError);
      assert.equal(error.rpcCode, -32040);
      return true;
    });
  });
});
