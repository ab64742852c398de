import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AuthorizationServer } from '../../src/auth/oauth/authorization-server.ts';
import { hashSecret } from '../../src/auth/oauth/token-secrets.ts';
import { createRepositories, type Repositories } from '../../src/storage/repositories/index.ts';
import { ENGINES, openTestStorage } from '../support/engines.ts';

const ISSUER = 'http://127.0.0.1:8080';
const CALLBACK = `${ISSUER}/console/callback`;

/**
 * The service's own code exchange (the console's callback, extensions §12): the client secret is
 * waived, nothing else is. PKCE, the redirect URI and single use are checked as at the token endpoint.
 */
for (const engine of ENGINES) {
  describe(`the console's in-process code exchange checks PKCE, redirect URI and single use, on ${engine}`, () => {
    let storage: Awaited<ReturnType<typeof openTestStorage>>;
    let repos: Repositories;
    let server: AuthorizationServer;
    let clientId: string;
    let userId: string;

    before(async () => {
      storage = await openTestStorage(engine);
      repos = createRepositories(storage.db);
      server = new AuthorizationServer(repos.oauth);
      const workspace = await repos.workspaces.create({
        slug: 'own-exchange',
        name: 'own-exchange',
        features: { apiKeys: true, oauthApps: true },
        rateLimits: {},
        maxConcurrentRuns: 10,
      });
      const app = await repos.oauthApps.create({
        workspaceId: workspace.id,
        name: 'agent-runs console',
        redirectUris: [CALLBACK],
        clientSecretHash: hashSecret('never-shown'),
      });
      clientId = app.id;
      const user = await repos.users.create({
        workspaceId: workspace.id,
        email: 'ada@example.com',
        passwordHash: 'unused',
        name: null,
      });
      userId = user.id;
    });
    after(() => storage.drop());

    /** A code issued for the console's callback with a fresh PKCE pair. */
    async function issue(): Promise<{ code: string; verifier: string }> {
      const verifier = randomBytes(32).toString('base64url');
      const location = await server.issueCode(
        {
          clientId,
          redirectUri: CALLBACK,
          scopes: ['runs:read'],
          state: 's',
          codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
          userId,
          agentIds: [],
        },
        ISSUER,
      );
      const code = new URL(location).searchParams.get('code');
      assert.ok(code, location);
      return { code, verifier };
    }

    it('the right verifier gets an svc_at_ access token lasting one hour; the same code again is refused', async () => {
      const { code, verifier } = await issue();
      const exchanged = await server.exchangeOwnCode({
        clientId,
        code,
        codeVerifier: verifier,
        redirectUri: CALLBACK,
      });
      assert.ok(exchanged.ok);
      assert.match(exchanged.accessToken, /^svc_at_/);
      const lifetime = exchanged.expiresAt.getTime() - Date.now();
      assert.ok(lifetime > 3_590_000 && lifetime <= 3_600_000, `${lifetime} ms`);
      const again = await server.exchangeOwnCode({
        clientId,
        code,
        codeVerifier: verifier,
        redirectUri: CALLBACK,
      });
      assert.deepEqual(again, { ok: false, error: 'invalid_grant' });
    });

    it('a wrong PKCE verifier is invalid_grant', async () => {
      const { code } = await issue();
      const wrong = randomBytes(32).toString('base64url');
      const exchanged = await server.exchangeOwnCode({
        clientId,
        code,
        codeVerifier: wrong,
        redirectUri: CALLBACK,
      });
      assert.deepEqual(exchanged, { ok: false, error: 'invalid_grant' });
    });

    it('a redirect URI other than the code’s is invalid_grant', async () => {
      const { code, verifier } = await issue();
      const exchanged = await server.exchangeOwnCode({
        clientId,
        code,
        codeVerifier: verifier,
        redirectUri: 'http://127.0.0.1:9/elsewhere',
      });
      assert.deepEqual(exchanged, { ok: false, error: 'invalid_grant' });
    });
  });
}
