import type { FastifyInstance, FastifyReply } from 'fastify';
import { checkAuthorizationRequest, errorRedirect } from '../../../auth/oauth/authorization-request.ts';
import type { AuthorizationServer } from '../../../auth/oauth/authorization-server.ts';
import { hashPassword, verifyPassword } from '../../../auth/password-hash.ts';
import { randomBase62 } from '../../../domain/ids.ts';
import type { AuthorizationRequest } from '../../../storage/repositories/oauth-flow-repository.ts';
import type { BrowserSessions } from '../../oauth/browser-sessions.ts';
import { issuerOf } from '../../oauth/issuer.ts';
import { signInThrottle } from '../../oauth/sign-in-throttle.ts';
import { describeRoute } from '../../openapi/describe-route.ts';
import { consentPage, messagePage, signInPage } from '../../pages/oauth-pages.ts';
import { pageSecurityHeaders } from '../../pages/security-headers.ts';
import type { AppResources } from '../../resources.ts';
import {
  ANSWER_CONSENT,
  AUTHORIZE,
  SHOW_CONSENT,
  SIGN_IN,
  SIGN_OUT,
} from './authorization-page-descriptions.ts';
import { formFieldsSchema } from '../../schemas/oauth-forms.ts';

/** An authorization request waits this long for sign-in and consent. */
const REQUEST_LIFETIME_MS = 10 * 60 * 1000;

const EXPIRED =
  'This authorization request has expired or was already answered. Go back to the application and start again.';
const UNVERIFIED =
  'The form could not be verified: the page is out of date or cookies are blocked. Go back to the application and start again.';

/**
 * The authorization endpoint and its pages: check the request, sign in, consent. Each step reads its
 * state from storage (the request by id, the browser session by cookie), so any replica serves it.
 */
export function authorizationPages(
  app: FastifyInstance,
  resources: AppResources,
  deps: { server: AuthorizationServer; sessions: BrowserSessions },
): void {
  const { repos, config, rateCounters } = resources;
  const { server, sessions } = deps;
  const issuer = () => issuerOf(config, app);

  /** The app and workspace names and a fresh form token for a pending request. */
  async function contextOf(pending: AuthorizationRequest, csrfToken: string) {
    const client = await repos.oauth.findClient(pending.appId);
    if (!client) return undefined;
    return {
      appName: client.app.name,
      workspaceName: client.workspace.name,
      requestId: pending.id,
      csrfToken,
    };
  }

  async function showSignIn(
    reply: FastifyReply,
    pending: AuthorizationRequest,
    status = 200,
    email?: string,
    error?: string,
  ) {
    const current = await sessions.current(reply.request);
    const session =
      current?.workspaceId === pending.workspaceId && current.userId === null
        ? current
        : await sessions.start(reply, pending.workspaceId, null, current);
    const context = await contextOf(pending, sessions.csrfToken(session, pending.id));
    if (!context) return sendPage(reply, 400, messagePage('Request expired', EXPIRED));
    return sendPage(reply, status, signInPage(context, { ...(email && { email }), ...(error && { error }) }));
  }

  app.get('/oauth/authorize', describeRoute(AUTHORIZE), async (request, reply) => {
    const check = await checkAuthorizationRequest(repos.oauth, formFieldsSchema.parse(request.query));
    if (!check.ok && !check.redirect)
      return sendPage(reply, 400, messagePage('Invalid request', check.message));
    if (!check.ok) {
      const { error, description, state } = check;
      return reply.redirect(
        errorRedirect(check.redirectUri, { error, description, state, issuer: issuer() }),
        302,
      );
    }
    const { client, redirectUri, scopes, state, codeChallenge } = check.request;
    const pending: AuthorizationRequest = {
      id: randomBase62(32),
      workspaceId: client.workspace.id,
      appId: client.app.id,
      redirectUri,
      scopes,
      state,
      codeChallenge,
      expiresAt: new Date(Date.now() + REQUEST_LIFETIME_MS).toISOString(),
    };
    await repos.oauthFlow.createRequest(pending);
    const session = await sessions.current(request);
    if (session?.userId && session.workspaceId === pending.workspaceId) {
      return reply.redirect(`consent?request=${pending.id}`, 303);
    }
    return showSignIn(reply, pending);
  });

  app.post('/oauth/sign-in', describeRoute(SIGN_IN), async (request, reply) => {
    const form = formFieldsSchema.parse(request.body);
    const pending = await repos.oauthFlow.findRequest(single(form.request));
    if (!pending) return sendPage(reply, 400, messagePage('Request expired', EXPIRED));
    const session = await sessions.current(request);
    if (
      !session ||
      session.workspaceId !== pending.workspaceId ||
      !sessions.csrfValid(session, pending.id, form.csrf)
    ) {
      return sendPage(reply, 403, messagePage('Form expired', UNVERIFIED));
    }
    const email = single(form.email).trim();
    const password = single(form.password);
    if (email === '' || password === '') {
      return showSignIn(reply, pending, 400, email, 'Enter your email and password.');
    }
    try {
      const throttle = await signInThrottle(rateCounters, {
        workspaceId: pending.workspaceId,
        email,
        address: request.ip,
      });
      if (!throttle.allowed) {
        reply.header('retry-after', throttle.retryAfterSeconds);
        return showSignIn(
          reply,
          pending,
          429,
          email,
          `Too many sign-in attempts. Try again in ${throttle.retryAfterSeconds} seconds.`,
        );
      }
    } catch (error) {
      request.log.warn({ err: error }, 'rate-limit counters unavailable; sign-in not throttled');
    }
    const found = await repos.users.findCredentials(pending.workspaceId, email);
    const valid = await verifyPassword(password, found?.passwordHash ?? (await decoyHash()));
    if (!found || !valid)
      return showSignIn(reply, pending, 401, email, 'The email or password is incorrect.');
    await sessions.start(reply, pending.workspaceId, found.user.id, session);
    return reply.redirect(`consent?request=${pending.id}`, 303);
  });

  // "Not you?": the browser's session ends and the same request asks for a sign-in again.
  app.post('/oauth/sign-out', describeRoute(SIGN_OUT), async (request, reply) => {
    const form = formFieldsSchema.parse(request.body);
    const pending = await repos.oauthFlow.findRequest(single(form.request));
    if (!pending) return sendPage(reply, 400, messagePage('Request expired', EXPIRED));
    const session = await sessions.current(request);
    if (!session || !sessions.csrfValid(session, pending.id, form.csrf)) {
      return sendPage(reply, 403, messagePage('Form expired', UNVERIFIED));
    }
    await sessions.start(reply, pending.workspaceId, null, session);
    return reply.redirect(`consent?request=${pending.id}`, 303);
  });

  app.get('/oauth/consent', describeRoute(SHOW_CONSENT), async (request, reply) => {
    const pending = await repos.oauthFlow.findRequest(single(formFieldsSchema.parse(request.query).request));
    if (!pending) return sendPage(reply, 400, messagePage('Request expired', EXPIRED));
    const session = await sessions.current(request);
    if (!session?.userId || session.workspaceId !== pending.workspaceId) return showSignIn(reply, pending);
    return showConsent(reply, pending, session.userId, sessions.csrfToken(session, pending.id));
  });

  async function showConsent(
    reply: FastifyReply,
    pending: AuthorizationRequest,
    userId: string,
    csrfToken: string,
    error?: string,
  ) {
    const [context, user, agents] = await Promise.all([
      contextOf(pending, csrfToken),
      repos.oauth.findUser(pending.workspaceId, userId),
      choosableAgents(pending.workspaceId),
    ]);
    if (!context || !user) return sendPage(reply, 400, messagePage('Request expired', EXPIRED));
    const details = { userEmail: user.email, scopes: pending.scopes, agents, ...(error && { error }) };
    return sendPage(reply, error ? 400 : 200, consentPage(context, details));
  }

  async function choosableAgents(workspaceId: string) {
    const agents = await repos.agents.listByWorkspace(workspaceId);
    return agents.filter((agent) => !agent.isSystem).map((agent) => ({ id: agent.id, name: agent.name }));
  }

  app.post('/oauth/consent', describeRoute(ANSWER_CONSENT), async (request, reply) => {
    const form = formFieldsSchema.parse(request.body);
    const pending = await repos.oauthFlow.findRequest(single(form.request));
    if (!pending) return sendPage(reply, 400, messagePage('Request expired', EXPIRED));
    const session = await sessions.current(request);
    if (
      !session?.userId ||
      session.workspaceId !== pending.workspaceId ||
      !sessions.csrfValid(session, pending.id, form.csrf)
    ) {
      return sendPage(reply, 403, messagePage('Form expired', UNVERIFIED));
    }
    const decision = single(form.decision);
    const csrfToken = sessions.csrfToken(session, pending.id);
    if (decision !== 'allow' && decision !== 'deny') {
      return showConsent(reply, pending, session.userId, csrfToken, 'Choose Allow or Deny.');
    }
    const agentIds = [...new Set(many(form.agentIds))];
    const choosable = new Set((await choosableAgents(pending.workspaceId)).map((agent) => agent.id));
    if (decision === 'allow' && agentIds.some((id) => !choosable.has(id))) {
      return showConsent(
        reply,
        pending,
        session.userId,
        csrfToken,
        'One of the chosen agents no longer exists.',
      );
    }
    // Answered once: a second submission (another tab, a double click) finds the request gone.
    if (!(await repos.oauthFlow.takeRequest(pending.id))) {
      return sendPage(reply, 400, messagePage('Request expired', EXPIRED));
    }
    const client = await repos.oauth.findClient(pending.appId);
    if (!client) return sendPage(reply, 400, messagePage('Request expired', EXPIRED));
    if (decision === 'allow' && !client.workspace.features.oauthApps) {
      const description = "the workspace's plan does not include OAuth applications";
      return reply.redirect(
        errorRedirect(pending.redirectUri, {
          error: 'unauthorized_client',
          description,
          state: pending.state,
          issuer: issuer(),
        }),
        303,
      );
    }
    if (decision === 'deny') {
      const description = 'the user denied access';
      return reply.redirect(
        errorRedirect(pending.redirectUri, {
          error: 'access_denied',
          description,
          state: pending.state,
          issuer: issuer(),
        }),
        303,
      );
    }
    const location = await server.issueCode(
      {
        clientId: pending.appId,
        redirectUri: pending.redirectUri,
        scopes: pending.scopes,
        state: pending.state,
        codeChallenge: pending.codeChallenge,
        userId: session.userId,
        agentIds,
      },
      issuer(),
    );
    return reply.redirect(location, 303);
  });
}

/** A page with the pages' security headers, never cached (it carries CSRF tokens). */
function sendPage(reply: FastifyReply, status: number, body: string) {
  return pageSecurityHeaders(reply)
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(body);
}

function single(value: string | string[] | undefined): string {
  return typeof value === 'string' ? value : '';
}

function many(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return typeof value === 'string' ? [value] : value;
}

let decoy: Promise<string> | undefined;

/** A hash to verify against when the email is unknown, so an unknown email takes as long as a wrong password. */
function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBase62(24));
  return decoy;
}
