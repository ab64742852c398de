import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { PageStep, PageVisit } from '../../src/auth/oauth/authorization-page-steps.ts';
import { AuthorizationPagesFlow } from '../../src/auth/oauth/authorization-pages-flow.ts';
import { AuthorizationServer } from '../../src/auth/oauth/authorization-server.ts';
import { BrowserSessions } from '../../src/auth/oauth/browser-sessions.ts';
import { WorkspaceCredentials } from '../../src/auth/workspace-credentials.ts';
import { RATE_LIMIT_WINDOW_SECONDS } from '../../src/domain/rate-limits.ts';
import { FlexibleRateCounters } from '../../src/infra/rate-limit-counters.ts';
import { createRepositories } from '../../src/storage/repositories/index.ts';
import { ENGINES, openTestStorage } from '../support/engines.ts';

const ISSUER = 'http://127.0.0.1:1';
const REDIRECT_URI = 'http://127.0.0.1:2/callback';

/** The page a step answers, or a failure naming what it answered instead. */
function pageOf(step: PageStep) {
  assert.equal(step.answer.kind, 'page', JSON.stringify(step.answer));
  if (step.answer.kind !== 'page') throw new Error('unreachable');
  return step.answer;
}

function locationOf(step: PageStep): string {
  assert.equal(step.answer.kind, 'redirect', JSON.stringify(step.answer));
  if (step.answer.kind !== 'redirect') throw new Error('unreachable');
  return step.answer.location;
}

for (const engine of ENGINES) {
  describe(`OAuth sign-in and consent flow on ${engine}`, () => {
    let storage: Awaited<ReturnType<typeof openTestStorage>>;
    let flow: AuthorizationPagesFlow;
    let sessions: BrowserSessions;
    let clientId: string;

    before(async () => {
      storage = await openTestStorage(engine);
      const repos = createRepositories(storage.db);
      sessions = new BrowserSessions(repos.oauthFlow);
      flow = new AuthorizationPagesFlow(
        {
          oauth: repos.oauth,
          flow: repos.oauthFlow,
          users: repos.users,
          agents: repos.agents,
          rateCounters: new FlexibleRateCounters({ kind: 'memory' }, RATE_LIMIT_WINDOW_SECONDS),
        },
        new AuthorizationServer(repos.oauth),
        sessions,
      );
      const workspace = await repos.workspaces.create({
        slug: 'pages',
        name: 'Pages',
        features: { apiKeys: true, oauthApps: true },
        rateLimits: {},
        maxConcurrentRuns: 10,
      });
      const credentials = new WorkspaceCredentials(repos);
      await credentials.createUser(workspace, { email: 'ada@example.com', password: 'correct horse' });
      const { oauthApp } = await credentials.createOAuthApp(workspace, {
        name: 'Dashboard',
        redirectUris: [REDIRECT_URI],
      });
      clientId = oauthApp.id;
    });
    after(() => storage.drop());

    const authorize = (sessionId?: string) =>
      flow.authorize(
        {
          response_type: 'code',
          client_id: clientId,
          redirect_uri: REDIRECT_URI,
          scope: 'runs:read',
          state: 'xyz',
          code_challenge: createHash('sha256').update(randomBytes(32)).digest('base64url'),
          code_challenge_method: 'S256',
        },
        { sessionId, issuer: ISSUER },
      );

    it('an authorization request without a session answers the sign-in page under a new anonymous session', async () => {
      const step = await authorize();
      const answer = pageOf(step);
      assert.equal(answer.status, 200);
      assert.equal(answer.page.view, 'sign-in');
      assert.ok(step.startedSessionId, 'the step names the session its cookie must carry');
      const session = await sessions.find(step.startedSessionId);
      assert.equal(session?.userId, null);
    });

    it('a wrong password answers 401 on the sign-in page and starts no session', async () => {
      const started = await authorize();
      const answer = pageOf(started);
      if (answer.page.view !== 'sign-in') return assert.fail('sign-in page expected');
      const visit: PageVisit = { sessionId: started.startedSessionId, issuer: ISSUER };
      const attempt = { address: '127.0.0.1', onThrottleUnavailable: () => assert.fail('counters are up') };
      const { requestId, csrfToken } = answer.page.context;
      const form = { requestId, csrf: csrfToken, email: 'ada@example.com', password: 'wrong horse' };
      const refused = await flow.signIn(form, visit, attempt);
      assert.equal(pageOf(refused).status, 401);
      assert.equal(refused.startedSessionId, undefined);
    });

    it('sign-in, consent and allow end in a redirect with a code; the request is answered only once', async () => {
      const started = await authorize();
      const signInPage = pageOf(started).page;
      if (signInPage.view !== 'sign-in') return assert.fail('sign-in page expected');
      const { requestId } = signInPage.context;
      const anonymous: PageVisit = { sessionId: started.startedSessionId, issuer: ISSUER };
      const signedIn = await flow.signIn(
        {
          requestId,
          csrf: signInPage.context.csrfToken,
          email: 'ada@example.com',
          password: 'correct horse',
        },
        anonymous,
        { address: '127.0.0.1', onThrottleUnavailable: () => assert.fail('counters are up') },
      );
      assert.equal(locationOf(signedIn), `consent?request=${requestId}`);
      assert.ok(signedIn.startedSessionId, 'signing in starts a fresh session');
      assert.notEqual(signedIn.startedSessionId, started.startedSessionId);
      const visit: PageVisit = { sessionId: signedIn.startedSessionId, issuer: ISSUER };

      const consentPage = pageOf(await flow.showConsent(requestId, visit)).page;
      if (consentPage.view !== 'consent') return assert.fail('consent page expected');
      assert.equal(consentPage.userEmail, 'ada@example.com');
      assert.deepEqual(consentPage.scopes, ['runs:read']);

      const consent = { requestId, csrf: consentPage.context.csrfToken, decision: 'allow', agentIds: [] };
      const allowed = new URL(locationOf(await flow.answerConsent(consent, visit)));
      assert.equal(`${allowed.origin}${allowed.pathname}`, REDIRECT_URI);
      assert.ok(allowed.searchParams.get('code'));
      assert.equal(allowed.searchParams.get('state'), 'xyz');
      assert.equal(allowed.searchParams.get('iss'), ISSUER);

      const again = pageOf(await flow.answerConsent(consent, visit));
      assert.equal(again.status, 400);
      assert.deepEqual(again.page.view === 'message' && again.page.title, 'Request expired');
    });

    it('a form token issued for another request and session answers 403', async () => {
      const first = pageOf(await authorize()).page;
      const second = await authorize();
      const secondPage = pageOf(second).page;
      if (first.view !== 'sign-in' || secondPage.view !== 'sign-in')
        return assert.fail('sign-in pages expected');
      const step = await flow.signOut(
        { requestId: secondPage.context.requestId, csrf: first.context.csrfToken },
        { sessionId: second.startedSessionId, issuer: ISSUER },
      );
      assert.equal(pageOf(step).status, 403);
    });
  });
}
