import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  AgentRunsClient,
  OAuthRefreshError,
  type OAuthCredential,
  type OAuthTokens,
} from '@agent-runs/client';
import { createOAuthFixture, obtainTokens, postForm, type OAuthFixture } from '../support/oauth-flow.ts';
import { startClientFixture, type ClientFixture } from './client-fixture.ts';

const SCOPE = 'models:read runs:read runs:write sessions:read sessions:write svc.identity:read';

describe('OAuth credentials: refresh with the non-rotating refresh token', () => {
  let fixture: ClientFixture;
  let oauth: OAuthFixture;
  before(async () => {
    fixture = await startClientFixture('sdk-oauth-keys');
    oauth = await createOAuthFixture(fixture.server, 'sdk-oauth');
  });
  after(() => fixture.close());

  /** A signed-in user's client, recording every request it sends and every onTokens call. */
  async function signedInClient(credential: Partial<OAuthCredential> = {}) {
    const tokens = await obtainTokens(fixture.server, oauth, { scope: SCOPE });
    const requests: string[] = [];
    const reported: OAuthTokens[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      requests.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
      return fetch(input, init);
    };
    const client = new AgentRunsClient({
      baseUrl: fixture.server.baseUrl,
      workspace: oauth.slug,
      fetch: recordingFetch,
      credential: {
        accessToken: tokens.access_token,
        refreshToken: tokens.refresh_token,
        clientId: oauth.clientId,
        clientSecret: oauth.clientSecret,
        onTokens: (next) => void reported.push(next),
        ...credential,
      },
    });
    return { client, tokens, requests, reported };
  }

  const revoke = async (token: string) => {
    const response = await postForm(`${fixture.server.baseUrl}/oauth/revoke`, undefined, {
      token,
      client_id: oauth.clientId,
      client_secret: oauth.clientSecret,
    });
    assert.equal(response.status, 200);
  };

  const tokenCalls = (requests: string[]) => requests.filter((request) => request === 'POST /oauth/token');

  it('after a 401 the client refreshes once, keeps the same refresh token, reports the tokens and retries', async () => {
    const { client, tokens, requests, reported } = await signedInClient();
    await revoke(tokens.access_token);

    const models = await client.models.list();
    assert.ok(models.models.length > 0);
    assert.deepEqual(requests, [
      `GET /api/v1/workspaces/${oauth.slug}/models`,
      'GET /.well-known/oauth-authorization-server',
      'POST /oauth/token',
      `GET /api/v1/workspaces/${oauth.slug}/models`,
    ]);
    assert.equal(reported.length, 1);
    const [renewed] = reported;
    assert.ok(renewed);
    assert.notEqual(renewed.accessToken, tokens.access_token);
    assert.match(renewed.accessToken, /^svc_at_/);
    assert.equal(renewed.refreshToken, tokens.refresh_token);
    assert.ok(renewed.expiresAt && renewed.expiresAt.getTime() > Date.now() + 3_000_000);
    assert.deepEqual(client.oauthTokens, renewed);
  });

  it('an access token expired in the database is refreshed the same way', async () => {
    const { client, tokens, reported } = await signedInClient();
    const sha256 = createHash('sha256').update(tokens.access_token).digest('hex');
    await fixture.server.service.resources.storage.db
      .updateTable('oauth_access_tokens')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('token_hash', '=', sha256)
      .execute();
    const me = await client.identity.userinfo();
    assert.equal(me.workspaceSlug, oauth.slug);
    assert.equal(reported.length, 1);
  });

  it('concurrent calls refused with 401 share one refresh', async () => {
    const { client, tokens, requests, reported } = await signedInClient();
    await revoke(tokens.access_token);
    const results = await Promise.all(Array.from({ length: 6 }, () => client.models.list()));
    assert.equal(results.length, 6);
    assert.equal(tokenCalls(requests).length, 1);
    assert.equal(reported.length, 1);
  });

  it('a known expiry refreshes shortly before it, without waiting for a 401', async () => {
    const { client, requests, reported } = await signedInClient({ expiresAt: Date.now() + 5_000 });
    await client.models.list();
    assert.deepEqual(requests, [
      'GET /.well-known/oauth-authorization-server',
      'POST /oauth/token',
      `GET /api/v1/workspaces/${oauth.slug}/models`,
    ]);
    assert.equal(reported.length, 1);
    // The new token's expiry is an hour away: the next call goes straight out.
    await client.models.list();
    assert.equal(tokenCalls(requests).length, 1);
  });

  it('a given tokenUrl and client_secret_post are used as they are', async () => {
    const { client, tokens, requests, reported } = await signedInClient({
      tokenUrl: `${fixture.server.baseUrl}/oauth/token`,
      tokenEndpointAuthMethod: 'client_secret_post',
    });
    await revoke(tokens.access_token);
    await client.models.list();
    assert.ok(!requests.includes('GET /.well-known/oauth-authorization-server'));
    assert.equal(tokenCalls(requests).length, 1);
    assert.equal(reported.length, 1);
  });

  it('a run and its stream go on after a refresh', async () => {
    const { client, tokens } = await signedInClient();
    await revoke(tokens.access_token);
    const outcome = await client.runs.run({ systemPrompt: 's', prompt: 'after refresh' });
    assert.equal(outcome.type, 'result');
    if (outcome.type === 'result') assert.equal(outcome.result.text, 'You said: after refresh');
  });

  it('once the grant is revoked the refresh fails with OAuthRefreshError invalid_grant', async () => {
    const { client, tokens, reported } = await signedInClient();
    await revoke(tokens.refresh_token);
    await assert.rejects(client.models.list(), (error: unknown) => {
      assert.ok(error instanceof OAuthRefreshError, String(error));
      assert.equal(error.code, 'invalid_grant');
      assert.equal(error.status, 400);
      return true;
    });
    assert.equal(reported.length, 0);
  });
});
