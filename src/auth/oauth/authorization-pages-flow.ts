import { randomBase62 } from '../../domain/ids.ts';
import type {
  AgentAdminStore,
  AuthorizationRequest,
  BrowserSession,
  OAuthFlowStore,
  OAuthStore,
  RateCounters,
  UserCredentialStore,
} from '../../engine/ports.ts';
import { hashPassword, verifyPassword } from '../password-hash.ts';
import { checkAuthorizationRequest, errorRedirect } from './authorization-request.ts';
import type { AuthorizationServer } from './authorization-server.ts';
import type { BrowserSessions } from './browser-sessions.ts';
import type {
  AuthorizationPage,
  ConsentForm,
  FormProof,
  PageAnswer,
  PageContext,
  PageStep,
  PageVisit,
  SignInAttempt,
  SignInForm,
} from './authorization-page-steps.ts';
import { signInThrottle } from './sign-in-throttle.ts';

/** An authorization request waits this long for sign-in and consent. */
const REQUEST_LIFETIME_MS = 10 * 60 * 1000;

const EXPIRED =
  'This authorization request has expired or was already answered. Go back to the application and start again.';
const UNVERIFIED =
  'The form could not be verified: the page is out of date or cookies are blocked. Go back to the application and start again.';

export interface AuthorizationPagesStores {
  oauth: OAuthStore;
  flow: OAuthFlowStore;
  users: UserCredentialStore;
  agents: Pick<AgentAdminStore, 'listByWorkspace'>;
  rateCounters: RateCounters;
}

/**
 * The authorization endpoint's sign-in and consent flow, one method per step. Each step reads its
 * state from storage (the request by id, the browser session by its id), so any replica serves it;
 * the HTTP layer parses the request, calls the step and renders what it answers.
 */
export class AuthorizationPagesFlow {
  readonly #stores: AuthorizationPagesStores;
  readonly #server: AuthorizationServer;
  readonly #sessions: BrowserSessions;

  constructor(stores: AuthorizationPagesStores, server: AuthorizationServer, sessions: BrowserSessions) {
    this.#stores = stores;
    this.#server = server;
    this.#sessions = sessions;
  }

  /** `GET /oauth/authorize`: check the request, keep it, then sign in (or go to consent if signed in). */
  async authorize(query: Record<string, unknown>, visit: PageVisit): Promise<PageStep> {
    const check = await checkAuthorizationRequest(this.#stores.oauth, query);
    if (!check.ok && !check.redirect) return page(400, message('Invalid request', check.message));
    if (!check.ok) {
      const { error, description, state } = check;
      return redirect(
        302,
        errorRedirect(check.redirectUri, { error, description, state, issuer: visit.issuer }),
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
    await this.#stores.flow.createRequest(pending);
    const session = await this.#sessions.find(visit.sessionId);
    if (session?.userId && session.workspaceId === pending.workspaceId) {
      return redirect(303, consentLocation(pending));
    }
    return this.#signInPage(pending, session);
  }

  /** `POST /oauth/sign-in`: check the form, throttle, verify the password, start a signed-in session. */
  async signIn(form: SignInForm, visit: PageVisit, attempt: SignInAttempt): Promise<PageStep> {
    const pending = await this.#stores.flow.findRequest(form.requestId);
    if (!pending) return expired();
    const session = await this.#sessions.find(visit.sessionId);
    if (
      !session ||
      session.workspaceId !== pending.workspaceId ||
      !this.#sessions.csrfValid(session, pending.id, form.csrf)
    ) {
      return unverified();
    }
    const email = form.email.trim();
    const { password } = form;
    if (email === '' || password === '') {
      return this.#signInPage(pending, session, {
        status: 400,
        email,
        error: 'Enter your email and password.',
      });
    }
    try {
      const throttle = await signInThrottle(this.#stores.rateCounters, {
        workspaceId: pending.workspaceId,
        email,
        address: attempt.address,
      });
      if (!throttle.allowed) {
        const error = `Too many sign-in attempts. Try again in ${throttle.retryAfterSeconds} seconds.`;
        const { retryAfterSeconds } = throttle;
        return this.#signInPage(pending, session, { status: 429, email, error, retryAfterSeconds });
      }
    } catch (error) {
      attempt.onThrottleUnavailable(error);
    }
    const found = await this.#stores.users.findCredentials(pending.workspaceId, email);
    const valid = await verifyPassword(password, found?.passwordHash ?? (await decoyHash()));
    if (!found || !valid) {
      return this.#signInPage(pending, session, {
        status: 401,
        email,
        error: 'The email or password is incorrect.',
      });
    }
    const started = await this.#sessions.start(pending.workspaceId, found.user.id, session);
    return { ...redirect(303, consentLocation(pending)), startedSessionId: started.id };
  }

  /** `POST /oauth/sign-out` ("Not you?"): the session ends and the same request asks for a sign-in again. */
  async signOut(form: FormProof, visit: PageVisit): Promise<PageStep> {
    const pending = await this.#stores.flow.findRequest(form.requestId);
    if (!pending) return expired();
    const session = await this.#sessions.find(visit.sessionId);
    if (!session || !this.#sessions.csrfValid(session, pending.id, form.csrf)) return unverified();
    const started = await this.#sessions.start(pending.workspaceId, null, session);
    return { ...redirect(303, consentLocation(pending)), startedSessionId: started.id };
  }

  /** `GET /oauth/consent`: the consent page for a signed-in session, else the sign-in page. */
  async showConsent(requestId: string, visit: PageVisit): Promise<PageStep> {
    const pending = await this.#stores.flow.findRequest(requestId);
    if (!pending) return expired();
    const session = await this.#sessions.find(visit.sessionId);
    if (!session?.userId || session.workspaceId !== pending.workspaceId) {
      return this.#signInPage(pending, session);
    }
    return this.#consentPage(pending, session.userId, this.#sessions.csrfToken(session, pending.id));
  }

  /** `POST /oauth/consent`: allow (issue a code for the chosen agents) or deny, answered once. */
  async answerConsent(form: ConsentForm, visit: PageVisit): Promise<PageStep> {
    const pending = await this.#stores.flow.findRequest(form.requestId);
    if (!pending) return expired();
    const session = await this.#sessions.find(visit.sessionId);
    if (
      !session?.userId ||
      session.workspaceId !== pending.workspaceId ||
      !this.#sessions.csrfValid(session, pending.id, form.csrf)
    ) {
      return unverified();
    }
    const { decision } = form;
    const csrfToken = this.#sessions.csrfToken(session, pending.id);
    if (decision !== 'allow' && decision !== 'deny') {
      return this.#consentPage(pending, session.userId, csrfToken, 'Choose Allow or Deny.');
    }
    const agentIds = [...new Set(form.agentIds)];
    const choosable = new Set((await this.#choosableAgents(pending.workspaceId)).map((agent) => agent.id));
    if (decision === 'allow' && agentIds.some((id) => !choosable.has(id))) {
      return this.#consentPage(
        pending,
        session.userId,
        csrfToken,
        'One of the chosen agents no longer exists.',
      );
    }
    // Answered once: a second submission (another tab, a double click) finds the request gone.
    if (!(await this.#stores.flow.takeRequest(pending.id))) return expired();
    const client = await this.#stores.oauth.findClient(pending.appId);
    if (!client) return expired();
    if (decision === 'allow' && !client.workspace.features.oauthApps) {
      const description = "the workspace's plan does not include OAuth applications";
      return redirect(303, refusal(pending, 'unauthorized_client', description, visit.issuer));
    }
    if (decision === 'deny') {
      return redirect(303, refusal(pending, 'access_denied', 'the user denied access', visit.issuer));
    }
    const location = await this.#server.issueCode(
      {
        clientId: pending.appId,
        redirectUri: pending.redirectUri,
        scopes: pending.scopes,
        state: pending.state,
        codeChallenge: pending.codeChallenge,
        userId: session.userId,
        agentIds,
      },
      visit.issuer,
    );
    return redirect(303, location);
  }

  /** The sign-in page, under an anonymous session of the request's workspace (started if need be). */
  async #signInPage(
    pending: AuthorizationRequest,
    current: BrowserSession | undefined,
    shown: { status?: number; email?: string; error?: string; retryAfterSeconds?: number } = {},
  ): Promise<PageStep> {
    let session: BrowserSession;
    let startedSessionId: string | undefined;
    if (current?.workspaceId === pending.workspaceId && current.userId === null) {
      session = current;
    } else {
      const started = await this.#sessions.start(pending.workspaceId, null, current);
      session = started.session;
      startedSessionId = started.id;
    }
    const context = await this.#contextOf(pending, this.#sessions.csrfToken(session, pending.id));
    const { status = 200, email, error, retryAfterSeconds } = shown;
    const answer: PageAnswer = {
      kind: 'page',
      ...(context
        ? {
            status,
            page: { view: 'sign-in', context, ...(email && { email }), ...(error && { error }) },
          }
        : { status: 400, page: EXPIRED_PAGE }),
      ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
    };
    return { answer, ...(startedSessionId !== undefined && { startedSessionId }) };
  }

  async #consentPage(
    pending: AuthorizationRequest,
    userId: string,
    csrfToken: string,
    error?: string,
  ): Promise<PageStep> {
    const [context, user, agents] = await Promise.all([
      this.#contextOf(pending, csrfToken),
      this.#stores.oauth.findUser(pending.workspaceId, userId),
      this.#choosableAgents(pending.workspaceId),
    ]);
    if (!context || !user) return expired();
    return page(error ? 400 : 200, {
      view: 'consent',
      context,
      userEmail: user.email,
      scopes: pending.scopes,
      agents,
      ...(error && { error }),
    });
  }

  /** The app and workspace names and a fresh form token for a pending request. */
  async #contextOf(pending: AuthorizationRequest, csrfToken: string): Promise<PageContext | undefined> {
    const client = await this.#stores.oauth.findClient(pending.appId);
    if (!client) return undefined;
    return {
      appName: client.app.name,
      workspaceName: client.workspace.name,
      requestId: pending.id,
      csrfToken,
    };
  }

  async #choosableAgents(workspaceId: string): Promise<{ id: string; name: string }[]> {
    const agents = await this.#stores.agents.listByWorkspace(workspaceId);
    return agents.filter((agent) => !agent.isSystem).map((agent) => ({ id: agent.id, name: agent.name }));
  }
}

function consentLocation(pending: AuthorizationRequest): string {
  return `consent?request=${pending.id}`;
}

function refusal(pending: AuthorizationRequest, error: string, description: string, issuer: string): string {
  return errorRedirect(pending.redirectUri, { error, description, state: pending.state, issuer });
}

function page(status: number, shown: AuthorizationPage): PageStep {
  return { answer: { kind: 'page', status, page: shown } };
}

function redirect(status: 302 | 303, location: string): PageStep {
  return { answer: { kind: 'redirect', status, location } };
}

function message(title: string, text: string): AuthorizationPage {
  return { view: 'message', title, message: text };
}

const EXPIRED_PAGE = message('Request expired', EXPIRED);

function expired(): PageStep {
  return page(400, EXPIRED_PAGE);
}

function unverified(): PageStep {
  return page(403, message('Form expired', UNVERIFIED));
}

let decoy: Promise<string> | undefined;

/** A hash to verify against when the email is unknown, so an unknown email takes as long as a wrong password. */
function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBase62(24));
  return decoy;
}
