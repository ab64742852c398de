import type { OAuthScope } from '../../domain/oauth-scopes.ts';

/** What the steps of the sign-in and consent flow take and answer (`authorization-pages-flow.ts`). */

/** What the sign-in and consent pages show of a pending request, with the form's CSRF token. */
export interface PageContext {
  appName: string;
  workspaceName: string;
  requestId: string;
  csrfToken: string;
}

/** A page to render: `http/` turns each into HTML. */
export type AuthorizationPage =
  | { view: 'message'; title: string; message: string }
  | { view: 'sign-in'; context: PageContext; email?: string; error?: string }
  | {
      view: 'consent';
      context: PageContext;
      userEmail: string;
      scopes: readonly OAuthScope[];
      agents: readonly { id: string; name: string }[];
      error?: string;
    };

/** What a step answers: a page with its status, or where to send the browser. */
export type PageAnswer =
  | { kind: 'page'; status: number; page: AuthorizationPage; retryAfterSeconds?: number }
  | { kind: 'redirect'; status: 302 | 303; location: string };

export interface PageStep {
  answer: PageAnswer;
  /** A session this step started: the browser's cookie must carry this id from now on. */
  startedSessionId?: string;
}

/** Who asks: the session id their cookie carries (if valid) and the issuer to name in redirects. */
export interface PageVisit {
  sessionId: string | undefined;
  issuer: string;
}

/** A submitted form's request id and CSRF token (absent when the field was not one value). */
export interface FormProof {
  requestId: string;
  csrf: string | undefined;
}

export interface SignInForm extends FormProof {
  email: string;
  password: string;
}

export interface ConsentForm extends FormProof {
  decision: string;
  agentIds: readonly string[];
}

export interface SignInAttempt {
  /** The client's address, counted by the brute-force throttle. */
  address: string;
  /** Called when the throttle's counters are unavailable: the attempt goes on unthrottled. */
  onThrottleUnavailable(error: unknown): void;
}
