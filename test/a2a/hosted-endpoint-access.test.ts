import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { describeHostedEndpoint } from '../support/endpoint-access.ts';
import { createOAuthFixture, obtainTokens } from '../support/oauth-flow.ts';
import { bearer, createWorkspaceWithKey, type TestServer } from '../support/test-server.ts';
import {
  a2aPeer,
  createAgent,
  endpointPath,
  isMessage,
  rpc,
  sendBody,
  textMessage,
  textOf,
} from './a2a-support.ts';

describeHostedEndpoint(
  'hosted A2A endpoint: credentials, scopes and rate limits as on every workspace route',
  {
    workspacePath: (workspaceSlug) => `/api/a2a/${workspaceSlug}`,
    path: (workspaceSlug) => endpointPath(workspaceSlug, 'helper'),
    start: (server, path, headers) => rpc(server, path, headers, sendBody('hi')),
  },
  (serverOf) => {
    let server: TestServer;
    before(() => {
      server = serverOf();
    });

    it('a message draws on the run-start bucket; past runStart it is 429 with Retry-After; cards and task reads draw on transport', async () => {
      const limited = await createWorkspaceWithKey(server, 'limited', { rateLimits: { runStart: 2 } });
      const headers = bearer(limited.key);
      await createAgent(server, 'limited', { name: 'Helper', systemPrompt: 's' });
      const path = endpointPath('limited', 'helper');

      const first = await rpc(server, path, headers, sendBody('one'));
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.headers.get('x-ratelimit-bucket'), 'run_start');
      assert.equal(first.headers.get('x-ratelimit-limit'), '2');
      assert.equal(first.headers.get('x-ratelimit-remaining'), '1');
      for (let index = 0; index < 3; index++) {
        const card = await server.request('GET', path, { headers });
        assert.equal(card.headers.get('x-ratelimit-bucket'), 'transport');
        const read = await rpc(server, path, headers, {
          jsonrpc: '2.0',
          id: 9,
          method: 'tasks/get',
          params: { id: 'nope' },
        });
        assert.equal(read.headers.get('x-ratelimit-bucket'), 'transport');
        assert.equal(read.body.error.code, -32001, 'an unknown task');
      }
      const streamed = await fetch(`${server.baseUrl}${path}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(sendBody('two', { method: 'message/stream' })),
      });
      assert.equal(streamed.headers.get('x-ratelimit-bucket'), 'run_start');
      assert.equal(streamed.headers.get('x-ratelimit-remaining'), '0');
      await streamed.text();

      const refused = await rpc(server, path, headers, sendBody('three'));
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error, 'rate_limit_exceeded');
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      assert.equal(refused.headers.get('x-ratelimit-bucket'), 'run_start');
      const cancel = await rpc(server, path, headers, {
        jsonrpc: '2.0',
        id: 2,
        method: 'tasks/cancel',
        params: { id: 'nope' },
      });
      assert.equal(
        cancel.headers.get('x-ratelimit-bucket'),
        'lifecycle',
        'cancelling is lifecycle, not a run start',
      );
    });

    describe('OAuth access tokens', () => {
      let agentId: string;
      let fixture: Awaited<ReturnType<typeof createOAuthFixture>>;
      before(async () => {
        fixture = await createOAuthFixture(server, 'oauthed');
        agentId = await createAgent(server, 'oauthed', { name: 'Helper', systemPrompt: 's' });
        await createAgent(server, 'oauthed', { name: 'Other Agent', slug: 'other-agent', systemPrompt: 's' });
      });

      it('a token without runs:write is 403 insufficient_scope on the card too', async () => {
        const token = await obtainTokens(server, fixture, { scope: 'runs:read sessions:write' });
        const answer = await server.request('GET', endpointPath('oauthed', 'helper'), {
          headers: bearer(token.access_token),
        });
        assert.equal(answer.status, 403, JSON.stringify(answer.body));
        assert.equal(answer.body.error, 'insufficient_scope');
        assert.equal(answer.body.required, 'runs:write');
      });

      it('a token with runs:write is served, and honors the agents chosen at consent', async () => {
        const token = await obtainTokens(server, fixture, { scope: 'runs:write', agentIds: [agentId] });
        const headers = bearer(token.access_token);
        const peer = await a2aPeer(`${server.baseUrl}${endpointPath('oauthed', 'helper')}`, headers);
        const reply = await peer.client.sendMessage(textMessage('from an app'));
        assert.ok(isMessage(reply));
        assert.equal(textOf(reply), 'You said: from an app');
        const refused = await rpc(server, endpointPath('oauthed', 'other-agent'), headers, sendBody('hi'));
        assert.equal(refused.body.error.code, -32040);
      });
    });
  },
);
