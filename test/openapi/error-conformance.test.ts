import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  consentByForm,
  createOAuthFixture,
  exchangeCode,
  postForm,
  type OAuthFixture,
} from '../support/oauth-flow.ts';
import { readAll } from '../support/sse-client.ts';
import { bearer, createWorkspaceWithKey, type TestResponse } from '../support/test-server.ts';
import { deferred } from '../support/waits.ts';
import { startSessionFixture, type SessionFixture } from '../sessions/session-support.ts';
import { DocumentConformance } from './document-conformance.ts';

/** Error answers, as a client gets them, are listed by the document for their route and fit its schemas. */

const WS = '/api/v1/workspaces/{workspaceSlug}';

describe('real error answers fit the document', { timeout: 120_000 }, () => {
  let fixture: SessionFixture;
  let conformance: DocumentConformance;
  let oauth: OAuthFixture;

  /** Calls a workspace route of the fixture (its key unless `headers` say otherwise) and checks the answer. */
  const call = async (
    method: string,
    template: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string>; ws?: string } = {},
  ): Promise<TestResponse> => {
    const response = await fixture.server.request(method, `${options.ws ?? fixture.ws}${path}`, {
      headers: options.headers ?? fixture.headers,
      ...(options.body !== undefined && { body: options.body }),
    });
    conformance.assertAnswer(method, `${WS}${template}`, response);
    return response;
  };

  before(async () => {
    fixture = await startSessionFixture('openai-chat');
    conformance = new DocumentConformance((await fixture.server.request('GET', '/openapi.json')).body);
    oauth = await createOAuthFixture(fixture.server, 'errors-oauth');
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  it('400 invalid_request (body, query, stream cursor) and invalid_model', async () => {
    const invalid = await call('POST', '/agent-runs', '/agent-runs', { body: { systemPrompt: 's' } });
    assert.equal(invalid.body.error, 'invalid_request');
    const model = await call('POST', '/agent-runs', '/agent-runs', {
      body: { systemPrompt: 's', prompt: 'p', modelId: 'nope/nope' },
    });
    assert.equal(model.body.error, 'invalid_model');
    const { runId } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });
    const cursor = await call('GET', '/agent-runs/{runId}/stream', `/agent-runs/${runId}/stream?lastSeq=-1`);
    assert.equal(cursor.status, 400);
    const query = await call('GET', '/agent-sessions', '/agent-sessions?metadata=nocolon');
    assert.equal(query.status, 400);
  });

  it('401 without a credential or with an unknown one, with WWW-Authenticate', async () => {
    for (const headers of [{}, bearer('svc_unknown'), bearer('svc_at_unknown')]) {
      const response = await call('GET', '/models', '/models', { headers });
      assert.equal(response.status, 401);
      assert.ok(response.headers.get('www-authenticate'));
    }
  });

  it('403 insufficient_scope with WWW-Authenticate, for an access token without the scope', async () => {
    const { redirect, verifier } = await consentByForm(fixture.server, oauth, { scope: 'models:read' });
    const token = await exchangeCode(
      fixture.server,
      oauth,
      redirect.searchParams.get('code') ?? '',
      verifier,
    );
    conformance.assertAnswer('POST', '/oauth/token', token);
    const response = await call('GET', '/agent-sessions', '/agent-sessions', {
      ws: oauth.ws,
      headers: bearer(token.body.access_token),
    });
    assert.equal(response.body.error, 'insufficient_scope');
    assert.match(response.headers.get('www-authenticate') ?? '', /insufficient_scope/);
  });

  it('404: an unknown run, feedback on an unknown run, another workspace in the path', async () => {
    assert.equal((await call('GET', '/agent-runs/{runId}', '/agent-runs/run_unknown')).status, 404);
    const feedback = await call('POST', '/agent-runs/{runId}/feedback', '/agent-runs/run_unknown/feedback', {
      body: { verdict: 'UP' },
    });
    assert.equal(feedback.status, 404);
    const mismatch = await call('GET', '/models', '/models', { ws: oauth.ws });
    assert.equal(mismatch.status, 404);
    assert.ok(mismatch.body.hint);
  });

  it('404 unknown_tool_use while the run waits, then 409 run_terminal once it ended', async () => {
    fixture.fake.enqueue({ toolCalls: [{ id: 't1', name: 'lookup', input: {} }] }, { text: ['ok'] });
    const run = await fixture.startRun({
      systemPrompt: 's',
      prompt: 'p',
      tools: [{ kind: 'local', name: 'lookup', parameters: { type: 'object', properties: {} } }],
    });
    await run.waitFor((frame) => frame.data.type === 'local_tool_call', 'the local_tool_call');
    const path = `/agent-runs/${run.runId}/tool-results`;
    const unknown = await call('POST', '/agent-runs/{runId}/tool-results', path, {
      body: { toolUseId: 'nope', result: 'x' },
    });
    assert.equal(unknown.body.error, 'unknown_tool_use');
    await call('POST', '/agent-runs/{runId}/tool-results', path, { body: { toolUseId: 't1', result: 'x' } });
    await run.ended;
    const late = await call('POST', '/agent-runs/{runId}/tool-results', path, {
      body: { toolUseId: 't1', result: 'x' },
    });
    assert.equal(late.body.error, 'run_terminal');
  });

  it('409 session_busy while a message runs, session_ended after the end', async () => {
    const sessionId = await fixture.newSession();
    const release = deferred();
    fixture.fake.enqueue({ text: ['slow'], holdUntil: release.promise });
    const first = await fixture.postMessage(sessionId, { prompt: 'one' });
    const template = '/agent-sessions/{sessionId}/messages';
    const busy = await call('POST', template, `/agent-sessions/${sessionId}/messages`, {
      body: { prompt: 'two' },
    });
    assert.equal(busy.body.error, 'session_busy');
    release.resolve();
    await readAll(fixture.streamUrl(first.body.runId), fixture.headers);
    await fixture.endSession(sessionId);
    const ended = await call('POST', template, `/agent-sessions/${sessionId}/messages`, {
      body: { prompt: 'three' },
    });
    assert.equal(ended.body.error, 'session_ended');
  });

  it('413 and 415: a body over the route limit, a body that is not JSON', async () => {
    const large = await call('POST', '/agent-runs/{runId}/feedback', '/agent-runs/run_x/feedback', {
      body: { verdict: 'UP', explanation: 'x'.repeat(1100 * 1024) },
    });
    assert.equal(large.status, 413);
    const sent = await fetch(`${fixture.server.baseUrl}${fixture.ws}/agent-runs`, {
      method: 'POST',
      headers: { ...fixture.headers, 'content-type': 'application/xml' },
      body: '<run/>',
    });
    const xml = { status: sent.status, headers: sent.headers, body: await sent.json() };
    conformance.assertAnswer('POST', `${WS}/agent-runs`, xml);
    assert.equal(xml.status, 415);
  });

  it('429 rate_limit_exceeded with Retry-After', async () => {
    const limited = await createWorkspaceWithKey(fixture.server, 'errors-limited', {
      rateLimits: { runStart: 1 },
    });
    const body = { systemPrompt: 's', prompt: 'p' };
    const accepted = await call('POST', '/agent-runs', '/agent-runs', {
      ws: limited.ws,
      headers: bearer(limited.key),
      body,
    });
    fixture.trackRun(accepted.body.runId, bearer(limited.key));
    const refused = await call('POST', '/agent-runs', '/agent-runs', {
      ws: limited.ws,
      headers: bearer(limited.key),
      body,
    });
    assert.equal(refused.status, 429);
    assert.ok(refused.headers.get('retry-after'));
  });

  it('the OAuth endpoints: token errors, revocation, userinfo for a person, the grant in the admin list', async () => {
    const { redirect, verifier } = await consentByForm(fixture.server, oauth, { scope: 'svc.identity:read' });
    const code = redirect.searchParams.get('code') ?? '';
    const issued = await exchangeCode(fixture.server, oauth, code, verifier);
    conformance.assertAnswer('POST', '/oauth/token', issued);
    const me = await fixture.server.request('GET', '/api/oauth/userinfo', {
      headers: bearer(issued.body.access_token),
    });
    conformance.assertAnswer('GET', '/api/oauth/userinfo', me);
    assert.equal(me.body.sub, oauth.userId);
    const wrongSecret = await exchangeCode(
      fixture.server,
      { ...oauth, clientSecret: 'wrong' },
      code,
      verifier,
    );
    conformance.assertAnswer('POST', '/oauth/token', wrongSecret);
    assert.equal(wrongSecret.body.error, 'invalid_client');
    // A reused code also revokes the tokens of its first exchange (RFC 6749 §4.1.2).
    const reused = await exchangeCode(fixture.server, oauth, code, verifier);
    conformance.assertAnswer('POST', '/oauth/token', reused);
    assert.equal(reused.body.error, 'invalid_grant');
    const grants = await fixture.server.admin('GET', `/workspaces/${oauth.slug}/oauth-grants`);
    conformance.assertAnswer('GET', '/admin/v1/workspaces/{slug}/oauth-grants', grants);
    assert.ok(grants.body.oauthGrants.length > 0);
    const revoked = await postForm(`${fixture.server.baseUrl}/oauth/revoke`, undefined, {
      token: issued.body.refresh_token,
      client_id: oauth.clientId,
      client_secret: oauth.clientSecret,
    });
    conformance.assertAnswer('POST', '/oauth/revoke', {
      status: revoked.status,
      headers: revoked.headers,
      body: (await revoked.text()) || undefined,
    });
  });

  it('the admin API: 401 without the token, 404 for an unknown workspace, 409 for a duplicate', async () => {
    const anonymous = await fixture.server.request('GET', '/admin/v1/workspaces');
    conformance.assertAnswer('GET', '/admin/v1/workspaces', anonymous);
    assert.equal(anonymous.status, 401);
    const unknown = await fixture.server.admin('GET', '/workspaces/no-such-workspace');
    conformance.assertAnswer('GET', '/admin/v1/workspaces/{slug}', unknown);
    assert.equal(unknown.status, 404);
    const duplicate = await fixture.server.admin('POST', '/workspaces', { slug: fixture.slug });
    conformance.assertAnswer('POST', '/admin/v1/workspaces', duplicate);
    assert.equal(duplicate.status, 409);
  });
});
