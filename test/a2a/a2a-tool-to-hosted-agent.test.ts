import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readAll } from '../support/sse-client.ts';
import { bearer, createWorkspaceWithKey, startTestServer, type TestServer } from '../support/test-server.ts';
import { CARD_PATH, createAgent, endpointPath } from './a2a-support.ts';

describe(
  "the service's own a2a tool kind calls a hosted agent of another workspace",
  { timeout: 120_000 },
  () => {
    let server: TestServer;
    let workspaceA: Awaited<ReturnType<typeof createWorkspaceWithKey>>;
    let keyB: string;
    before(async () => {
      // Dev mode's mock model calls a tool on `call <tool> {json}` and reports what it returned.
      server = await startTestServer({ dev: true, env: { AGENT_RUNS_FETCH_ALLOW: '127.0.0.0/8' } });
      workspaceA = await createWorkspaceWithKey(server, 'alpha');
      keyB = (await createWorkspaceWithKey(server, 'beta')).key;
      await createAgent(server, 'beta', { name: 'Echoer', systemPrompt: 'Echo.' });
    });
    after(() => server.close());

    for (const [what, suffix] of [
      ['the endpoint URL (its GET is the card)', ''],
      ['the card URL', CARD_PATH],
    ] as const) {
      it(`workspace A's agent with an a2a ref to B's hosted endpoint (${what}) and B's key in its headers gets B's reply as its tool result`, async () => {
        const slug = `delegator${suffix === '' ? '' : '-card'}`;
        await createAgent(server, 'alpha', {
          name: 'Delegator',
          slug,
          systemPrompt: 'Delegate to the peer.',
          tools: [
            {
              kind: 'a2a',
              name: 'peer',
              agentCardUrl: `${server.baseUrl}${endpointPath('beta', 'echoer')}${suffix}`,
              headers: { authorization: `Bearer ${keyB}` },
            },
          ],
        });
        const agents = await server.admin('GET', '/workspaces/alpha/agents');
        const agentId = agents.body.agents.find((agent: { slug: string }) => agent.slug === slug)
          .id as string;
        const sessionsOfB = async () =>
          (await server.request('GET', '/api/v1/workspaces/beta/agent-sessions', { headers: bearer(keyB) }))
            .body.total as number;
        const before = await sessionsOfB();
        const created = await server.request('POST', `${workspaceA.ws}/agent-runs`, {
          headers: bearer(workspaceA.key),
          body: { agentId, prompt: 'call peer {"message":"hello from alpha"}' },
        });
        assert.equal(created.status, 202, JSON.stringify(created.body));
        const frames = await readAll(`${server.baseUrl}${created.body.streamUrl}`, bearer(workspaceA.key));
        const types = frames.map((frame) => frame.data.type);
        assert.equal(types.at(-1), 'result', types.join(','));
        const call = frames.find((frame) => frame.data.type === 'tool_call')?.data.data;
        assert.deepEqual(call?.input, { message: 'hello from alpha' });
        const result = frames.find((frame) => frame.data.type === 'tool_result')?.data.data;
        assert.equal(result?.name, 'peer');
        assert.equal(result?.ok, true, JSON.stringify(result));
        assert.equal(result?.summary, 'You said: hello from alpha');
        assert.equal(frames.at(-1)?.data.data.text, 'Tool peer returned: You said: hello from alpha');

        // B served it as its own run, in a new session of its own workspace (no contextId on the ref).
        assert.equal(await sessionsOfB(), before + 1);
      });
    }
  },
);
