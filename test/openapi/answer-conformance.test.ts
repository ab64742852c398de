import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { createAgent, endpointPath, sendBody } from '../a2a/a2a-support.ts';
import { readAll } from '../support/sse-client.ts';
import { startSessionFixture, PNG_BASE64, type SessionFixture } from '../sessions/session-support.ts';
import type { TestResponse } from '../support/test-server.ts';
import { DocumentConformance } from './document-conformance.ts';

/**
 * The JSON bodies of the main routes, as a client gets them, fit the document's schemas for their
 * status (and their documented success headers are there). Error answers: see error-conformance.
 */

const WS = '/api/v1/workspaces/{workspaceSlug}';

describe('real answers of the main routes fit the document', { timeout: 120_000 }, () => {
  let fixture: SessionFixture;
  let conformance: DocumentConformance;
  const ws = (path: string, body?: unknown) => ({
    path,
    ...(body !== undefined && { body }),
  });
  const call = async (method: string, template: string, request: { path: string; body?: unknown }) => {
    const response = await fixture.server.request(method, `${fixture.ws}${request.path}`, {
      headers: fixture.headers,
      ...(request.body !== undefined && { body: request.body }),
    });
    conformance.assertAnswer(method, `${WS}${template}`, response);
    return response;
  };

  before(async () => {
    fixture = await startSessionFixture('openai-chat');
    const document = await fixture.server.request('GET', '/openapi.json');
    conformance = new DocumentConformance(document.body);
    conformance.assertAnswer('GET', '/openapi.json', document);
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  it('runs: models, creation, snapshot, feedback (201 then 200), the feedback list, cancel of an ended run', async () => {
    await call('GET', '/models', ws('/models'));
    fixture.fake.enqueue({ text: ['Hello, ', 'world.'] });
    const created = await call(
      'POST',
      '/agent-runs',
      ws('/agent-runs', { systemPrompt: 's', prompt: 'hi', metadata: { customer: 'c1' } }),
    );
    assert.equal(created.status, 202);
    const runId = created.body.runId as string;
    await readAll(fixture.streamUrl(runId), fixture.headers);
    const snapshot = await call('GET', '/agent-runs/{runId}', ws(`/agent-runs/${runId}`));
    assert.equal(snapshot.body.status, 'succeeded');
    const first = await call(
      'POST',
      '/agent-runs/{runId}/feedback',
      ws(`/agent-runs/${runId}/feedback`, { verdict: 'UP' }),
    );
    assert.equal(first.status, 201);
    const again = await call(
      'POST',
      '/agent-runs/{runId}/feedback',
      ws(`/agent-runs/${runId}/feedback`, { verdict: 'DOWN', explanation: 'meh' }),
    );
    assert.equal(again.status, 200);
    await call('GET', '/reply-feedback', ws('/reply-feedback'));
    const cancelled = await call('POST', '/agent-runs/{runId}/cancel', ws(`/agent-runs/${runId}/cancel`));
    assert.equal(cancelled.body.status, 'succeeded');
  });

  it('a local tool result is accepted with the documented body', async () => {
    fixture.fake.enqueue({ toolCalls: [{ id: 't1', name: 'lookup', input: {} }] }, { text: ['ok'] });
    const run = await fixture.startRun({
      systemPrompt: 's',
      prompt: 'p',
      tools: [{ kind: 'local', name: 'lookup', parameters: { type: 'object', properties: {} } }],
    });
    await run.waitFor((frame) => frame.data.type === 'local_tool_call', 'the local_tool_call');
    const posted = await call(
      'POST',
      '/agent-runs/{runId}/tool-results',
      ws(`/agent-runs/${run.runId}/tool-results`, { toolUseId: 't1', result: 'found' }),
    );
    assert.equal(posted.status, 200);
    await run.ended;
  });

  it('sessions: creation, list, detail, a message with an attachment, replay, end', async () => {
    const created = await call(
      'POST',
      '/agent-sessions',
      ws('/agent-sessions', { systemPrompt: 's', metadata: { k: 'v' } }),
    );
    assert.equal(created.status, 201);
    const sessionId = created.body.sessionId as string;
    fixture.fake.enqueue({ text: ['Seen.'] });
    const message = await call(
      'POST',
      '/agent-sessions/{sessionId}/messages',
      ws(`/agent-sessions/${sessionId}/messages`, {
        messages: [
          {
            role: 'user',
            content: 'look',
            attachments: [
              { type: 'input_file', mimeType: 'image/png', filename: 'dot.png', data: PNG_BASE64 },
            ],
          },
        ],
      }),
    );
    assert.equal(message.status, 202);
    await readAll(fixture.streamUrl(message.body.runId), fixture.headers);
    await call('GET', '/agent-sessions', ws('/agent-sessions?metadata=k:v&status=active&limit=5'));
    await call('GET', '/agent-sessions/{sessionId}', ws(`/agent-sessions/${sessionId}`));
    const replay = await call(
      'GET',
      '/agent-sessions/{sessionId}/events',
      ws(`/agent-sessions/${sessionId}/events`),
    );
    assert.deepEqual(
      replay.body.events.map((frame: { type: string }) => frame.type),
      ['user_message', 'assistant_message'],
    );
    assert.equal(replay.body.events[0].attachments[0].type, 'input_file');
    await call(
      'GET',
      '/agent-sessions/{sessionId}/events',
      ws(`/agent-sessions/${sessionId}/events?lastMessages=1`),
    );
    await call('DELETE', '/agent-sessions/{sessionId}', ws(`/agent-sessions/${sessionId}`));
  });

  it('identity, health and OAuth discovery', async () => {
    const check = async (method: string, path: string, headers: Record<string, string> = {}) => {
      const response = await fixture.server.request(method, path, { headers });
      conformance.assertAnswer(method, path, response);
      return response;
    };
    await check('GET', '/api/oauth/userinfo', fixture.headers);
    await check('GET', '/healthz');
    await check('GET', '/readyz');
    await check('GET', '/.well-known/oauth-authorization-server');
  });

  it('the hosted A2A endpoint: its card at both paths and a message/send answer', async () => {
    await createAgent(fixture.server, fixture.slug, {
      name: 'Docs Agent',
      slug: 'docs-agent',
      systemPrompt: 's',
    });
    const endpoint = endpointPath(fixture.slug, 'docs-agent');
    const template = '/api/a2a/{workspaceSlug}/agents/{agentSlug}';
    for (const [path, documented] of [
      [endpoint, template],
      [`${endpoint}/.well-known/agent-card.json`, `${template}/.well-known/agent-card.json`],
    ] as const) {
      const card = await fixture.server.request('GET', path, { headers: fixture.headers });
      conformance.assertAnswer('GET', documented, card);
      assert.equal(card.body.name, 'Docs Agent');
    }
    fixture.fake.enqueue({ text: ['Hi there.'] });
    const answer = await fixture.server.request('POST', endpoint, {
      headers: fixture.headers,
      body: sendBody('hi'),
    });
    conformance.assertAnswer('POST', template, answer);
    assert.equal(answer.body.result?.kind, 'message', JSON.stringify(answer.body));
    conformance.assertComponent('A2aUsage', answer.body.result.metadata.svc);
  });

  it('the admin API: every collection created, listed and deleted', async () => {
    const admin = async (method: string, template: string, path: string, body?: unknown) => {
      const response: TestResponse = await fixture.server.admin(method, path, body);
      conformance.assertAnswer(method, `/admin/v1${template}`, response);
      assert.ok(
        response.status < 300,
        `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`,
      );
      return response;
    };
    await admin('POST', '/workspaces', '/workspaces', { slug: 'docs', rateLimits: { runStart: 10 } });
    await admin('GET', '/workspaces', '/workspaces');
    await admin('GET', '/workspaces/{slug}', '/workspaces/docs');
    await admin('PATCH', '/workspaces/{slug}', '/workspaces/docs', { name: 'Docs', maxConcurrentRuns: 5 });
    const key = await admin('POST', '/workspaces/{slug}/api-keys', '/workspaces/docs/api-keys', {
      name: 'ci',
    });
    await admin('GET', '/workspaces/{slug}/api-keys', '/workspaces/docs/api-keys');
    const offering = await admin('POST', '/offerings', '/offerings', {
      provider: 'mock',
      vendorModelId: 'docs-echo',
      pricing: { inputPer1MUsd: 1, outputPer1MUsd: 2, cacheReadPer1MUsd: 0.5 },
    });
    await admin('GET', '/offerings', '/offerings');
    const provider = await admin('POST', '/workspaces/{slug}/providers', '/workspaces/docs/providers', {
      provider: 'mock',
      apiKey: 'k',
      models: [{ vendorModelId: 'echo' }],
    });
    await admin('GET', '/workspaces/{slug}/providers', '/workspaces/docs/providers');
    const tool = await admin('POST', '/workspaces/{slug}/tools', '/workspaces/docs/tools', {
      name: 'lookup',
      http: { url: 'https://tools.example.com/lookup', headers: { authorization: 'secret' } },
    });
    await admin('GET', '/workspaces/{slug}/tools', '/workspaces/docs/tools');
    const agent = await admin('POST', '/workspaces/{slug}/agents', '/workspaces/docs/agents', {
      name: 'Helper',
      systemPrompt: 'Be brief.',
      tools: [{ kind: 'mcp', name: 'docs', url: 'https://mcp.example.com', headers: { authorization: 'x' } }],
    });
    await admin('GET', '/workspaces/{slug}/agents', '/workspaces/docs/agents');
    const user = await admin('POST', '/workspaces/{slug}/users', '/workspaces/docs/users', {
      email: 'ada@docs.example',
      password: 'a long passphrase',
    });
    await admin('GET', '/workspaces/{slug}/users', '/workspaces/docs/users');
    const app = await admin('POST', '/workspaces/{slug}/oauth-apps', '/workspaces/docs/oauth-apps', {
      name: 'App',
      redirectUris: ['https://app.example.com/cb'],
    });
    await admin('GET', '/workspaces/{slug}/oauth-apps', '/workspaces/docs/oauth-apps');
    await admin('GET', '/workspaces/{slug}/oauth-grants', '/workspaces/docs/oauth-grants');
    for (const [template, path] of [
      ['/workspaces/{slug}/oauth-apps/{id}', `/workspaces/docs/oauth-apps/${app.body.clientId}`],
      ['/workspaces/{slug}/users/{id}', `/workspaces/docs/users/${user.body.id}`],
      ['/workspaces/{slug}/agents/{id}', `/workspaces/docs/agents/${agent.body.id}`],
      ['/workspaces/{slug}/tools/{id}', `/workspaces/docs/tools/${tool.body.id}`],
      ['/workspaces/{slug}/providers/{id}', `/workspaces/docs/providers/${provider.body.id}`],
      ['/offerings/{id}', `/offerings/${offering.body.id}`],
      ['/workspaces/{slug}/api-keys/{id}', `/workspaces/docs/api-keys/${key.body.id}`],
      ['/workspaces/{slug}', '/workspaces/docs'],
    ] as const) {
      await admin('DELETE', template, path);
    }
  });
});
