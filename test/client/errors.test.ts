import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AgentRunsClient,
  AgentRunsError,
  ApiKeysPlanError,
  errorFor,
  ForbiddenError,
  InsufficientScopeError,
  InvalidModelError,
  InvalidRequestError,
  NotFoundError,
  OAuthAppsPlanError,
  RateLimitError,
  RunTerminalError,
  SessionBusyError,
  SessionEndedError,
  UnauthorizedError,
  UnknownToolUseError,
  type Credential,
} from '@agent-runs/client';
import { createOAuthFixture, obtainTokens } from '../support/oauth-flow.ts';
import { createWorkspaceWithKey } from '../support/test-server.ts';
import { SLOW_MODEL, startClientFixture, wordsPrompt, type ClientFixture } from './client-fixture.ts';

/** Asserts `promise` rejects with an instance of `ErrorClass` and returns it for further checks. */
async function rejection<T extends AgentRunsError>(
  promise: Promise<unknown>,
  ErrorClass: abstract new (...args: never[]) => T,
): Promise<T> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ErrorClass, `expected ${ErrorClass.name}, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected ${ErrorClass.name}, but the call succeeded`);
}

const localTool = { kind: 'local', name: 'lookup', parameters: { type: 'object', properties: {} } } as const;

describe('typed errors: one class per error code of the service', () => {
  let fixture: ClientFixture;
  let client: AgentRunsClient;
  before(async () => {
    fixture = await startClientFixture('sdk-errors');
    client = fixture.client;
  });
  after(() => fixture.close());

  const clientFor = (workspace: string, credential: Credential) =>
    new AgentRunsClient({ baseUrl: fixture.server.baseUrl, workspace, credential });

  it('an unknown API key is UnauthorizedError (401, code unauthorized)', async () => {
    const error = await rejection(clientFor(fixture.slug, 'svc_not_a_key').models.list(), UnauthorizedError);
    assert.equal(error.status, 401);
    assert.equal(error.code, 'unauthorized');
    assert.match(error.message, /unknown, expired or revoked/);
  });

  it('a missing credential body ({ error: "Unauthorized", message }) is classified by its status', () => {
    const error = errorFor(401, { error: 'Unauthorized', message: 'missing credential' }, new Headers());
    assert.ok(error instanceof UnauthorizedError);
    assert.equal(error.code, 'unauthorized');
    assert.equal(error.message, 'missing credential');
  });

  it("a slug that is not the credential's workspace is NotFoundError with the hint naming the right one", async () => {
    await fixture.server.admin('POST', '/workspaces', { slug: 'sdk-elsewhere' });
    for (const slug of ['sdk-elsewhere', 'sdk-nowhere']) {
      const error = await rejection(clientFor(slug, fixture.key).models.list(), NotFoundError);
      assert.equal(error.code, 'not_found');
      assert.match(error.hint ?? '', /sdk-errors/);
    }
  });

  it('an unknown run is NotFoundError', async () => {
    await rejection(client.runs.get('run_unknown'), NotFoundError);
    await rejection(client.runs.feedback('run_unknown', { verdict: 'UP' }), NotFoundError);
  });

  it('both prompt and messages is InvalidRequestError with the server message', async () => {
    const error = await rejection(
      client.runs.create({ systemPrompt: 's', prompt: 'a', messages: [{ role: 'user', content: 'b' }] }),
      InvalidRequestError,
    );
    assert.equal(error.status, 400);
    assert.match(error.message, /exactly one of prompt or messages/);
  });

  it('an unresolvable modelId is InvalidModelError with its candidates list', async () => {
    const error = await rejection(
      client.runs.create({ systemPrompt: 's', prompt: 'a', modelId: 'nobody/nothing' }),
      InvalidModelError,
    );
    assert.equal(error.code, 'invalid_model');
    assert.ok(Array.isArray(error.candidates));
  });

  it('an ephemeral run with a key limited to listed agents is ForbiddenError', async () => {
    const agent = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/agents`, {
      name: 'Listed',
      systemPrompt: 'You are listed.',
    });
    const key = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/api-keys`, {
      agentIds: [agent.body.id],
    });
    const error = await rejection(
      clientFor(fixture.slug, key.body.key).runs.create({ systemPrompt: 's', prompt: 'a' }),
      ForbiddenError,
    );
    assert.equal(error.status, 403);
  });

  it('a key with usage internal is ForbiddenError with a hint', async () => {
    const key = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/api-keys`, {
      usage: 'internal',
    });
    const error = await rejection(clientFor(fixture.slug, key.body.key).models.list(), ForbiddenError);
    assert.match(error.hint ?? '', /developer_api/);
  });

  it('an answer to no pending call is UnknownToolUseError; an answer after the end is RunTerminalError', async () => {
    const { runId } = await client.runs.create({
      systemPrompt: 's',
      prompt: 'call lookup {}',
      tools: [localTool],
    });
    let toolUseId: string | undefined;
    for await (const event of client.runs.stream(runId)) {
      if (event.type !== 'local_tool_call') continue;
      toolUseId = event.data.toolUseId;
      // The run is waiting for this call: an answer to any other id is refused.
      const error = await rejection(
        client.runs.submitToolResult(runId, { toolUseId: `${toolUseId}_other`, result: 'stray' }),
        UnknownToolUseError,
      );
      assert.equal(error.status, 404);
      assert.equal(error.code, 'unknown_tool_use');
      assert.deepEqual(await client.runs.submitToolResult(runId, { toolUseId, result: 'found' }), {
        toolUseId,
        accepted: true,
      });
    }
    assert.ok(toolUseId);
    const error = await rejection(
      client.runs.submitToolResult(runId, { toolUseId, result: 'late' }),
      RunTerminalError,
    );
    assert.equal(error.status, 409);
    assert.equal(error.code, 'run_terminal');
  });

  it('past the run-start limit is RateLimitError with Retry-After and the X-RateLimit-* figures', async () => {
    const limited = await createWorkspaceWithKey(fixture.server, 'sdk-limited', {
      rateLimits: { runStart: 1 },
    });
    const limitedClient = clientFor('sdk-limited', limited.key);
    await limitedClient.runs.create({ systemPrompt: 's', prompt: 'one' });
    const error = await rejection(
      limitedClient.runs.create({ systemPrompt: 's', prompt: 'two' }),
      RateLimitError,
    );
    assert.equal(error.status, 429);
    assert.ok((error.retryAfterSeconds ?? 0) >= 1, `retry after ${error.retryAfterSeconds}`);
    assert.equal(error.limit, 1);
    assert.equal(error.remaining, 0);
    assert.equal(error.bucket, 'run_start');
    assert.ok(error.resetAt instanceof Date);
  });

  it('an access token without the route scope is InsufficientScopeError listing the required scope', async () => {
    const oauth = await createOAuthFixture(fixture.server, 'sdk-scopes');
    const tokens = await obtainTokens(fixture.server, oauth, { scope: 'models:read' });
    const oauthClient = clientFor('sdk-scopes', {
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token,
      clientId: oauth.clientId,
      clientSecret: oauth.clientSecret,
    });
    assert.ok((await oauthClient.models.list()).models.length > 0);
    const error = await rejection(
      oauthClient.runs.create({ systemPrompt: 's', prompt: 'a' }),
      InsufficientScopeError,
    );
    assert.deepEqual(error.required, ['runs:write']);
    assert.match(error.headers.get('www-authenticate') ?? '', /insufficient_scope/);

    await fixture.server.admin('PATCH', '/workspaces/sdk-scopes', { features: { oauthApps: false } });
    await rejection(oauthClient.models.list(), OAuthAppsPlanError);
  });

  it('a workspace whose plan lacks API keys is ApiKeysPlanError', async () => {
    const planless = await createWorkspaceWithKey(fixture.server, 'sdk-planless');
    await fixture.server.admin('PATCH', '/workspaces/sdk-planless', { features: { apiKeys: false } });
    const error = await rejection(clientFor('sdk-planless', planless.key).models.list(), ApiKeysPlanError);
    assert.equal(error.status, 403);
    assert.equal(error.code, 'api_keys_plan');
  });

  it('a message while the previous run is in flight is SessionBusyError; after the end, SessionEndedError', async () => {
    const { sessionId } = await client.sessions.create({ systemPrompt: 's', modelId: SLOW_MODEL });
    const first = await client.sessions.message(sessionId, { prompt: wordsPrompt(100) });
    await rejection(client.sessions.message(sessionId, { prompt: 'again' }), SessionBusyError);
    await client.sessions.end(sessionId);
    await rejection(client.sessions.message(sessionId, { prompt: 'after the end' }), SessionEndedError);
    for await (const event of client.runs.stream(first.runId)) if (event.type === 'cancelled') break;
  });

  it('an unknown code is the base AgentRunsError, keeping the code, status and body', () => {
    const body = { error: 'brand_new_code', message: 'something new' };
    const error = errorFor(418, body, new Headers());
    assert.equal(error.constructor, AgentRunsError);
    assert.equal(error.code, 'brand_new_code');
    assert.equal(error.status, 418);
    assert.deepEqual(error.body, body);
  });
});
