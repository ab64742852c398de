import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {
  AuthorizationPage,
  FormProof,
  PageStep,
  PageVisit,
} from '../../../auth/oauth/authorization-page-steps.ts';
import type { AuthorizationPagesFlow } from '../../../auth/oauth/authorization-pages-flow.ts';
import { issuerOf } from '../../oauth/issuer.ts';
import type { SessionCookie } from '../../oauth/session-cookie.ts';
import { describeRoute } from '../../openapi/describe-route.ts';
import { consentPage, messagePage, signInPage } from '../../pages/oauth-pages.ts';
import { pageSecurityHeaders } from '../../pages/security-headers.ts';
import { formFieldsSchema, type FormFields } from '../../schemas/oauth-forms.ts';
import type { AppResources } from '../../resources.ts';
import {
  ANSWER_CONSENT,
  AUTHORIZE,
  SHOW_CONSENT,
  SIGN_IN,
  SIGN_OUT,
} from './authorization-page-descriptions.ts';

/**
 * The authorization endpoint and its pages: each route reads the form and the session cookie, calls
 * its step of the sign-in and consent flow (`auth/oauth/authorization-pages-flow.ts`) and renders
 * what the step answers.
 */
export function authorizationPages(
  app: FastifyInstance,
  resources: AppResources,
  deps: { flow: AuthorizationPagesFlow; cookie: SessionCookie },
): void {
  const { config } = resources;
  const { flow, cookie } = deps;
  const visitOf = (request: FastifyRequest): PageVisit => ({
    sessionId: cookie.read(request),
    issuer: issuerOf(config, app),
  });
  const answer = (reply: FastifyReply, step: PageStep) => sendStep(reply, cookie, step);

  app.get('/oauth/authorize', describeRoute(AUTHORIZE), async (request, reply) => {
    const query = formFieldsSchema.parse(request.query);
    return answer(reply, await flow.authorize(query, visitOf(request)));
  });

  app.post('/oauth/sign-in', describeRoute(SIGN_IN), async (request, reply) => {
    const form = formFieldsSchema.parse(request.body);
    const signIn = { ...proofOf(form), email: single(form.email), password: single(form.password) };
    const attempt = {
      address: request.ip,
      onThrottleUnavailable: (error: unknown) =>
        request.log.warn({ err: error }, 'rate-limit counters unavailable; sign-in not throttled'),
    };
    return answer(reply, await flow.signIn(signIn, visitOf(request), attempt));
  });

  // "Not you?": the browser's session ends and the same request asks for a sign-in again.
  app.post('/oauth/sign-out', describeRoute(SIGN_OUT), async (request, reply) => {
    const form = formFieldsSchema.parse(request.body);
    return answer(reply, await flow.signOut(proofOf(form), visitOf(request)));
  });

  app.get('/oauth/consent', describeRoute(SHOW_CONSENT), async (request, reply) => {
    const requestId = single(formFieldsSchema.parse(request.query).request);
    return answer(reply, await flow.showConsent(requestId, visitOf(request)));
  });

  app.post('/oauth/consent', describeRoute(ANSWER_CONSENT), async (request, reply) => {
    const form = formFieldsSchema.parse(request.body);
    const consent = { ...proofOf(form), decision: single(form.decision), agentIds: many(form.agentIds) };
    return answer(reply, await flow.answerConsent(consent, visitOf(request)));
  });
}

/** Sets the session cookie a step started, then sends its page or redirect. */
function sendStep(reply: FastifyReply, cookie: SessionCookie, step: PageStep) {
  if (step.startedSessionId !== undefined) cookie.write(reply, step.startedSessionId);
  const { answer } = step;
  if (answer.kind === 'redirect') return reply.redirect(answer.location, answer.status);
  if (answer.retryAfterSeconds !== undefined) reply.header('retry-after', answer.retryAfterSeconds);
  return sendPage(reply, answer.status, render(answer.page));
}

function render(page: AuthorizationPage): string {
  switch (page.view) {
    case 'message':
      return messagePage(page.title, page.message);
    case 'sign-in':
      return signInPage(page.context, {
        ...(page.email !== undefined && { email: page.email }),
        ...(page.error !== undefined && { error: page.error }),
      });
    case 'consent': {
      const { context, view: _view, ...details } = page;
      return consentPage(context, details);
    }
  }
}

/** A page with the pages' security headers, never cached (it carries CSRF tokens). */
function sendPage(reply: FastifyReply, status: number, body: string) {
  return pageSecurityHeaders(reply)
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(body);
}

function proofOf(form: FormFields): FormProof {
  return { requestId: single(form.request), csrf: typeof form.csrf === 'string' ? form.csrf : undefined };
}

function single(value: string | string[] | undefined): string {
  return typeof value === 'string' ? value : '';
}

function many(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return typeof value === 'string' ? [value] : value;
}
