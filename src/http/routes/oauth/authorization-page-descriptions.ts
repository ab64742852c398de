/** The OpenAPI descriptions of the authorization endpoint and its pages (`authorization-pages.ts`). */
import type { DocumentedResponse, RouteDescription } from '../../openapi/describe-route.ts';
import {
  authorizeQuerySchema,
  consentFormSchema,
  consentQuerySchema,
  signInFormSchema,
  signOutFormSchema,
} from '../../schemas/oauth-forms.ts';

const page = (description: string): DocumentedResponse => ({ description, contentType: 'text/html' });
const redirect = (description: string): DocumentedResponse => ({
  description,
  headers: { Location: 'Where the browser goes next.' },
});
const EXPIRED_PAGE = page('The request expired or was already answered: a page saying to start again.');
const UNVERIFIED_PAGE = page('The form could not be verified (CSRF): a page saying to start again.');

export const AUTHORIZE: RouteDescription = {
  operationId: 'authorize',
  summary: 'Authorization endpoint',
  description:
    'Checks the request, then shows the sign-in page (or goes to consent when the browser is signed in). Errors go back to the redirect URI with `error`, `error_description`, `state` and `iss`, except an unknown client or redirect URI, which are shown on a page.',
  tags: ['oauth'],
  auth: 'none',
  bucket: { unmetered: 'browser pages of the sign-in flow, before any credential' },
  query: authorizeQuerySchema,
  responses: {
    200: page('The sign-in page (form fields `email` and `password`).'),
    302: redirect(
      'Back to the redirect URI with an error: `invalid_request`, `invalid_scope`, `unsupported_response_type`, `unauthorized_client`.',
    ),
    303: redirect('To the consent page (the browser is already signed in).'),
    400: page('The client or the redirect URI could not be verified: a page that says so.'),
  },
};

export const SIGN_IN: RouteDescription = {
  operationId: 'signIn',
  summary: 'Sign-in form',
  tags: ['oauth'],
  auth: 'none',
  bucket: {
    unmetered: 'a browser form: attempts are throttled per account and address instead (sign-in throttle)',
  },
  form: signInFormSchema,
  responses: {
    303: redirect('Signed in: to the consent page.'),
    400: page('The sign-in page again (a field is empty), or the request expired.'),
    401: page('The sign-in page again: the email or password is incorrect.'),
    403: UNVERIFIED_PAGE,
    429: {
      ...page('The sign-in page again: too many attempts for the account or the address.'),
      headers: { 'Retry-After': 'Seconds until another attempt is counted.' },
    },
  },
};

export const SIGN_OUT: RouteDescription = {
  operationId: 'signOut',
  summary: '"Sign in as someone else"',
  description: "Ends the browser's session; the same request asks for a sign-in again.",
  tags: ['oauth'],
  auth: 'none',
  bucket: { unmetered: 'browser pages of the sign-in flow, before any credential' },
  form: signOutFormSchema,
  responses: {
    303: redirect('To the consent page, which shows the sign-in page.'),
    400: EXPIRED_PAGE,
    403: UNVERIFIED_PAGE,
  },
};

export const SHOW_CONSENT: RouteDescription = {
  operationId: 'showConsent',
  summary: 'Consent page',
  tags: ['oauth'],
  auth: 'none',
  bucket: { unmetered: 'browser pages of the sign-in flow, before any credential' },
  query: consentQuerySchema,
  responses: {
    200: page(
      'The consent page: the requested scopes in words, a checkbox `agentIds` per agent, buttons `decision=allow` and `decision=deny` (the sign-in page when the browser is not signed in).',
    ),
    400: EXPIRED_PAGE,
  },
};

export const ANSWER_CONSENT: RouteDescription = {
  operationId: 'answerConsent',
  summary: 'Consent form',
  description: 'Answered once: a second submission finds the request gone.',
  tags: ['oauth'],
  auth: 'none',
  bucket: { unmetered: 'browser pages of the sign-in flow, before any credential' },
  form: consentFormSchema,
  responses: {
    303: redirect(
      'Back to the redirect URI with `code`, `state` and `iss` (allow), or with `error=access_denied` (deny) or `error=unauthorized_client`.',
    ),
    400: page(
      'The consent page again (no decision, an agent that no longer exists), or the request expired.',
    ),
    403: UNVERIFIED_PAGE,
  },
};
