import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/domain/ids.ts';
import { OAuthFlowRepository } from '../../src/storage/repositories/oauth-flow-repository.ts';
import { OauthAppRepository } from '../../src/storage/repositories/oauth-app-repository.ts';
import { OAuthRepository } from '../../src/storage/repositories/oauth-repository.ts';
import { UserRepository } from '../../src/storage/repositories/user-repository.ts';
import { WorkspaceRepository } from '../../src/storage/repositories/workspace-repository.ts';
import { ENGINES, openTestStorage } from '../support/engines.ts';

const inOneHour = () => new Date(Date.now() + 3_600_000).toISOString();
const anHourAgo = () => new Date(Date.now() - 3_600_000).toISOString();

for (const engine of ENGINES) {
  describe(`OAuth storage on ${engine}`, () => {
    let storage: Awaited<ReturnType<typeof openTestStorage>>;
    let oauth: OAuthRepository;
    let flow: OAuthFlowRepository;
    let apps: OauthAppRepository;
    let users: UserRepository;
    let workspaces: WorkspaceRepository;

    before(async () => {
      storage = await openTestStorage(engine);
      oauth = new OAuthRepository(storage.db);
      flow = new OAuthFlowRepository(storage.db);
      apps = new OauthAppRepository(storage.db);
      users = new UserRepository(storage.db);
      workspaces = new WorkspaceRepository(storage.db);
    });
    after(() => storage.drop());

    /** A workspace with one user and one app. */
    const setUp = async (slug: string) => {
      const workspace = await workspaces.create({
        slug,
        name: slug,
        features: { apiKeys: true, oauthApps: true },
        rateLimits: {},
        maxConcurrentRuns: 10,
      });
      const user = await users.create({
        workspaceId: workspace.id,
        email: `${slug}@x.test`,
        passwordHash: 'h',
        name: null,
      });
      const app = await apps.create({
        workspaceId: workspace.id,
        name: 'App',
        redirectUris: ['http://127.0.0.1:9/cb'],
        clientSecretHash: 'secret-hash',
      });
      return { workspace, user, app };
    };

    const newGrant = async (slug: string, refreshHash = `rt-${slug}`) => {
      const { workspace, user, app } = await setUp(slug);
      const grant = await oauth.createGrant(
        {
          id: newId('oauthGrant'),
          workspaceId: workspace.id,
          appId: app.id,
          userId: user.id,
          scopes: ['runs:read', 'models:read'],
          agentIds: ['agt_a'],
        },
        refreshHash,
        { hash: `at-${slug}`, scopes: ['runs:read', 'models:read'], expiresAt: inOneHour() },
      );
      return { workspace, user, app, grant };
    };

    it('a client is found by its id with its workspace and secret hash', async () => {
      const { workspace, app } = await setUp('client');
      const found = await oauth.findClient(app.id);
      assert.equal(found?.app.name, 'App');
      assert.deepEqual(found?.app.redirectUris, ['http://127.0.0.1:9/cb']);
      assert.equal(found?.workspace.slug, workspace.slug);
      assert.equal(found?.clientSecretHash, 'secret-hash');
      assert.equal(await oauth.findClient('app_unknown'), undefined);
    });

    it('an authorization code is consumed once: the second consumer finds it gone', async () => {
      const { workspace, user, app } = await setUp('code');
      const code = {
        codeHash: 'code-hash',
        workspaceId: workspace.id,
        appId: app.id,
        userId: user.id,
        redirectUri: 'http://127.0.0.1:9/cb',
        scopes: ['runs:write' as const],
        agentIds: ['agt_x'],
        codeChallenge: 'c'.repeat(43),
        codeChallengeMethod: 'S256',
        expiresAt: inOneHour(),
      };
      await oauth.saveCode(code);
      assert.deepEqual(await oauth.findCode('code-hash'), code);
      const consumed = await Promise.all([oauth.consumeCode('code-hash'), oauth.consumeCode('code-hash')]);
      assert.deepEqual(consumed.sort(), [false, true]);
      assert.equal(await oauth.findCode('code-hash'), undefined);
    });

    it('a used code bound to its grant: presenting it again deletes it and revokes the grant (RFC 6749 §4.1.2)', async () => {
      const { workspace, user, app } = await setUp('reuse');
      await oauth.saveCode({
        codeHash: 'reuse-code',
        workspaceId: workspace.id,
        appId: app.id,
        userId: user.id,
        redirectUri: 'http://127.0.0.1:9/cb',
        scopes: ['runs:read'],
        agentIds: [],
        codeChallenge: 'c'.repeat(43),
        codeChallengeMethod: 'S256',
        expiresAt: inOneHour(),
      });
      assert.equal(await oauth.refuseReusedCode('reuse-code'), false, 'an unused code is not a reuse');
      assert.equal(await oauth.bindCodeToGrant('reuse-code', 'grant_none'), false, 'only a used code binds');
      assert.equal(await oauth.consumeCode('reuse-code'), true);
      const grant = await oauth.createGrant(
        {
          id: newId('oauthGrant'),
          workspaceId: workspace.id,
          appId: app.id,
          userId: user.id,
          scopes: ['runs:read'],
          agentIds: [],
        },
        'rt-reuse',
        { hash: 'at-reuse', scopes: ['runs:read'], expiresAt: inOneHour() },
      );
      assert.equal(await oauth.bindCodeToGrant('reuse-code', grant.id), true);
      assert.equal(await oauth.refuseReusedCode('reuse-code'), true);
      assert.equal(await oauth.findGrantByRefreshHash('rt-reuse'), undefined, 'the grant is revoked');
      assert.equal(await oauth.findAccessToken('at-reuse'), undefined, 'its access tokens are gone');
      assert.equal(await oauth.refuseReusedCode('reuse-code'), false, 'the refused code is gone');
      assert.equal(
        await oauth.bindCodeToGrant('reuse-code', grant.id),
        false,
        'a grant created after the refusal finds nothing to bind to',
      );
    });

    it('a client-credentials token leads to its app and workspace, with no grant; deleting the app ends it', async () => {
      const { workspace, app } = await setUp('app-token');
      const token = (hash: string, expiresAt: string) => ({
        hash,
        scopes: ['runs:write' as const],
        expiresAt,
      });
      await oauth.addAppAccessToken(app, token('app-expired', anHourAgo()));
      await oauth.addAppAccessToken(app, token('app-live', inOneHour()));
      const record = await oauth.findAccessToken('app-live');
      assert.equal(record?.appId, app.id);
      assert.equal(record?.grant, null);
      assert.equal(record?.workspace.id, workspace.id);
      assert.deepEqual(record?.scopes, ['runs:write']);
      assert.equal(await oauth.findAccessToken('app-expired'), undefined, 'the expired token was dropped');
      await oauth.addAppAccessToken(app, token('app-revoked', inOneHour()));
      await oauth.deleteAccessToken('app-revoked');
      assert.equal(await oauth.findAccessToken('app-revoked'), undefined);
      await apps.delete(workspace.id, app.id);
      assert.equal(await oauth.findAccessToken('app-live'), undefined);
    });

    it('an access token leads to its grant, scopes, workspace and expiry', async () => {
      const { workspace, user, grant } = await newGrant('token');
      const record = await oauth.findAccessToken('at-token');
      assert.equal(record?.appId, grant.appId);
      assert.equal(record?.grant?.id, grant.id);
      assert.equal(record?.grant?.userId, user.id);
      assert.deepEqual(record?.grant?.agentIds, ['agt_a']);
      assert.deepEqual(record?.scopes, ['models:read', 'runs:read']);
      assert.equal(record?.workspace.id, workspace.id);
      assert.equal(await oauth.findAccessToken('unknown'), undefined);
    });

    it('a refresh adds access tokens to the grant (narrower scopes kept per token) and drops its expired ones', async () => {
      const { grant } = await newGrant('refresh');
      assert.equal(
        await oauth.addAccessToken(grant.id, {
          hash: 'expired',
          scopes: ['runs:read'],
          expiresAt: anHourAgo(),
        }),
        true,
      );
      assert.equal(
        await oauth.addAccessToken(grant.id, {
          hash: 'narrow',
          scopes: ['runs:read'],
          expiresAt: inOneHour(),
        }),
        true,
      );
      assert.deepEqual((await oauth.findAccessToken('narrow'))?.scopes, ['runs:read']);
      assert.equal(await oauth.findAccessToken('expired'), undefined, 'the expired token was dropped');
      assert.ok(await oauth.findAccessToken('at-refresh'));
    });

    it('revoking a grant stops its refresh token and deletes its access tokens', async () => {
      const { grant } = await newGrant('revoke');
      assert.equal((await oauth.findGrantByRefreshHash('rt-revoke'))?.id, grant.id);
      await oauth.revokeGrant(grant.id);
      assert.equal(await oauth.findGrantByRefreshHash('rt-revoke'), undefined);
      assert.equal(await oauth.findAccessToken('at-revoke'), undefined);
      assert.equal(
        await oauth.addAccessToken(grant.id, { hash: 'late', scopes: ['runs:read'], expiresAt: inOneHour() }),
        false,
      );
    });

    it('deleting the app, the user or the grant deletes the grant and its tokens', async () => {
      const viaApp = await newGrant('del-app');
      await apps.delete(viaApp.workspace.id, viaApp.app.id);
      const viaUser = await newGrant('del-user');
      await users.delete(viaUser.workspace.id, viaUser.user.id);
      const viaGrant = await newGrant('del-grant');
      assert.equal(await oauth.deleteGrant(viaGrant.workspace.id, viaGrant.grant.id), true);
      for (const slug of ['del-app', 'del-user', 'del-grant']) {
        assert.equal(await oauth.findGrantByRefreshHash(`rt-${slug}`), undefined, slug);
        assert.equal(await oauth.findAccessToken(`at-${slug}`), undefined, slug);
      }
      assert.equal(await oauth.deleteGrant(viaGrant.workspace.id, viaGrant.grant.id), false);
    });

    it('grants are listed per workspace, newest first', async () => {
      const first = await newGrant('list', 'rt-list-1');
      const second = await oauth.createGrant(
        {
          id: newId('oauthGrant'),
          workspaceId: first.workspace.id,
          appId: first.app.id,
          userId: first.user.id,
          scopes: ['sessions:read'],
          agentIds: [],
        },
        'rt-list-2',
        { hash: 'at-list-2', scopes: ['sessions:read'], expiresAt: inOneHour() },
      );
      const listed = await oauth.listGrants(first.workspace.id);
      assert.deepEqual(
        listed.map((grant) => grant.id),
        [second.id, first.grant.id],
      );
    });

    it('browser sessions and authorization requests are found until they expire; a request is taken once', async () => {
      const { workspace, app } = await setUp('flow');
      await flow.createSession({
        idHash: 'live',
        workspaceId: workspace.id,
        userId: null,
        csrfSecret: 's',
        expiresAt: inOneHour(),
      });
      await flow.createSession({
        idHash: 'old',
        workspaceId: workspace.id,
        userId: null,
        csrfSecret: 's',
        expiresAt: anHourAgo(),
      });
      assert.equal((await flow.findSession('live'))?.csrfSecret, 's');
      assert.equal(await flow.findSession('old'), undefined);
      const request = {
        id: 'req-1',
        workspaceId: workspace.id,
        appId: app.id,
        redirectUri: 'http://127.0.0.1:9/cb',
        scopes: ['runs:read' as const],
        state: 'xyz',
        codeChallenge: 'c'.repeat(43),
        expiresAt: inOneHour(),
      };
      await flow.createRequest(request);
      await flow.createRequest({ ...request, id: 'req-old', expiresAt: anHourAgo() });
      assert.deepEqual(await flow.findRequest('req-1'), request);
      assert.equal(await flow.findRequest('req-old'), undefined);
      const taken = await Promise.all([flow.takeRequest('req-1'), flow.takeRequest('req-1')]);
      assert.deepEqual(taken.sort(), [false, true]);
      assert.equal(await flow.findRequest('req-1'), undefined);
    });
  });
}
