import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createAgent } from '../a2a/a2a-support.ts';
import { describeHostedEndpoint } from '../support/endpoint-access.ts';
import { createOAuthFixture, obtainTokens } from '../support/oauth-flow.ts';
import { bearer, createWorkspaceWithKey, type TestServer } from '../support/test-server.ts';
import { agUiPath, eventsOf, frontEnd, runOnce, userMessage } from './ag-ui-support.ts';

const input = (text = 'hi') => ({
  threadId: crypto.randomUUID(),
  runId: 'r1',
  messages: [userMessage(text)],
});

describeHostedEndpoint(
  'AG-UI endpoint (extensions §11): credentials, scope, allowlists and rate limits as for a run start',
  {
    workspacePath: (workspaceSlug) => `/api/ag-ui/${workspaceSlug}`,
    path: (workspaceSlug) => agUiPath(workspaceSlug, 'helper'),
    start: (server, path, headers) => server.request('POST', path, { headers, body: input() }),
  },
  (serverOf) => {
    let server: TestServer;
    let key: Record<string, string>;
    let helperId: string;
    const post = (path: string, headers: Record<string, string>, body: unknown = input()) =>
      server.request('POST', path, { headers, body });

    before(async () => {
      server = serverOf();
      key = bearer((await createWorkspaceWithKey(server, 'acme')).key);
      helperId = await createAgent(server, 'acme', { name: 'Helper', systemPrompt: 's' });
      await createAgent(server, 'acme', { name: 'Other Agent', slug: 'other-agent', systemPrompt: 's' });
    });

    it('an API key runs the agent: the official HttpAgent gets the reply', async () => {
      const front = frontEnd(server, 'acme', 'helper', key);
      front.messages = [userMessage('from a front end')];
      const run = await runOnce(front);
      assert.equal(run.error, undefined);
      assert.equal(eventsOf(run, 'RUN_FINISHED')[0]?.result, 'You said: from a front end');
    });

    it('an unknown agent, and one outside the key allowlist, are both 403 forbidden', async () => {
      const unknown = await post(agUiPath('acme', 'nobody'), key);
      assert.equal(unknown.status, 403, JSON.stringify(unknown.body));
      assert.equal(unknown.body.error, 'forbidden');
      const limitedKey = await server.admin('POST', '/workspaces/acme/api-keys', { agentIds: [helperId] });
      assert.equal(limitedKey.status, 201, JSON.stringify(limitedKey.body));
      const limited = bearer(limitedKey.body.key as string);
      const refused = await post(agUiPath('acme', 'other-agent'), limited);
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.equal(refused.body.error, 'forbidden');
      assert.equal(refused.body.message, unknown.body.message.replace('nobody', 'other-agent'));
      const allowed = await post(agUiPath('acme', 'helper'), limited);
      assert.equal(allowed.status, 200);
    });

    describe('OAuth access tokens', () => {
      let agentId: string;
      let fixture: Awaited<ReturnType<typeof createOAuthFixture>>;
      before(async () => {
        fixture = await createOAuthFixture(server, 'oauthed');
        agentId = await createAgent(server, 'oauthed', { name: 'Helper', systemPrompt: 's' });
        await createAgent(server, 'oauthed', { name: 'Other Agent', slug: 'other-agent', systemPrompt: 's' });
      });

      it('a token with runs:write is served, and honors the agents chosen at consent', async () => {
        const token = await obtainTokens(server, fixture, { scope: 'runs:write', agentIds: [agentId] });
        const headers = bearer(token.access_token);
        const front = frontEnd(server, 'oauthed', 'helper', headers);
        front.messages = [userMessage('from an app')];
        const run = await runOnce(front);
        assert.equal(eventsOf(run, 'RUN_FINISHED')[0]?.result, 'You said: from an app');
        const refused = await post(agUiPath('oauthed', 'other-agent'), headers);
        assert.equal(refused.status, 403);
        assert.equal(refused.body.error, 'forbidden');
      });
    });
  },
);
