import cookie from '@fastify/cookie';
import { createHmac } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { CONSOLE_CALLBACK_PATH } from '../../auth/console/console-sign-in.ts';
import { NotFoundError } from '../../domain/errors.ts';
import { ConsoleSignInCookies } from '../console/console-sign-in-cookies.ts';
import { issuerOf } from '../oauth/issuer.ts';
import { describeRoute } from '../openapi/describe-route.ts';
import { consoleSecurityHeaders } from '../pages/security-headers.ts';
import { parseInput } from '../parse.ts';
import {
  consoleCallbackQuerySchema,
  consoleHandoffBodySchema,
  consoleHandoffResponseSchema,
  consoleSignInStartQuerySchema,
} from '../schemas/console-sign-in.ts';
import type { AppResources } from '../resources.ts';

const HANDOFF_REFUSED =
  'No such sign-in handoff: it is unknown, was already used, has expired (they last 60 seconds) or was started in another browser. Sign in again.';

/**
 * The console's OAuth sign-in (extensions §12): `start` sends the browser to the authorization pages
 * for the workspace's console app, `callback` exchanges the code inside the service and hands the
 * token over through a single-use handoff, which the console's script redeems with a POST. Every
 * outcome lands on the console's page (`/console#/…`), where the console says what happened.
 */
export async function consoleSignInRoutes(app: FastifyInstance, options: { resources: AppResources }) {
  const { resources } = options;
  const { consoleSignIn } = resources;
  await app.register(cookie, {
    secret: createHmac('sha256', resources.serviceSecret).update('console-sign-in').digest('base64url'),
  });
  const cookies = new ConsoleSignInCookies({
    secure: resources.config.publicUrl?.startsWith('https:') ?? false,
  });
  const consolePage = (fragment: string) => `${issuerOf(resources.config, app)}/console#${fragment}`;
  const backToSignIn = (reply: FastifyReply, error: string, workspace: string | undefined) => {
    const query = new URLSearchParams({ error });
    if (workspace) query.set('workspace', workspace);
    return redirect(reply, consolePage(`/sign-in?${query.toString()}`));
  };

  app.get(
    '/console/oauth/start',
    describeRoute({
      operationId: 'startConsoleSignIn',
      summary: 'Start the console’s OAuth sign-in',
      description: `Redirects to the authorization endpoint for the workspace's OAuth app whose redirect URIs include \`{base_url}${CONSOLE_CALLBACK_PATH}\`, with a new state and PKCE challenge kept in a signed HttpOnly cookie. Without such an app (or workspace) it redirects to the console's sign-in page with the reason (\`#/sign-in?error=…\`).`,
      tags: ['console'],
      auth: 'none',
      bucket: { unmetered: 'a redirect; the sign-in it leads to is throttled' },
      query: consoleSignInStartQuerySchema,
      responses: {
        303: { description: 'To the authorization endpoint, or back to the console with the reason.' },
      },
    }),
    async (request, reply) => {
      const workspace = stringOf((request.query as Record<string, unknown>).workspace)?.trim();
      if (!workspace) return backToSignIn(reply, 'workspace_missing', undefined);
      const started = await consoleSignIn.start(workspace, issuerOf(resources.config, app));
      if (!started.ok) return backToSignIn(reply, started.refusal, workspace);
      cookies.writePending(reply, started.pending);
      return redirect(reply, started.authorizeLocation);
    },
  );

  app.get(
    CONSOLE_CALLBACK_PATH,
    describeRoute({
      operationId: 'finishConsoleSignIn',
      summary: 'The console’s OAuth redirect URI',
      description:
        'Checks the state against the browser’s cookie, exchanges the code inside the service (PKCE checked; the code never leaves the server) and redirects to `/console#/oauth-handoff/{id}`: a single-use handoff, bound to this browser by an HttpOnly cookie, that the console redeems within 60 seconds. A bad state, a denied consent or a failed exchange redirects to the console’s sign-in page with the reason.',
      tags: ['console'],
      auth: 'none',
      bucket: { unmetered: 'answers only a browser holding the matching sign-in cookie' },
      query: consoleCallbackQuerySchema,
      responses: { 303: { description: 'To the console, with a handoff or the reason it failed.' } },
    }),
    async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const pending = cookies.readPending(request);
      cookies.clearPending(reply);
      const finished = await consoleSignIn.finish(
        {
          code: stringOf(query.code),
          state: stringOf(query.state),
          error: stringOf(query.error),
          iss: stringOf(query.iss),
        },
        pending,
        issuerOf(resources.config, app),
      );
      if (!finished.ok) return backToSignIn(reply, finished.refusal, pending?.workspaceSlug);
      cookies.writeHandoffBinding(reply, finished.browserBinding);
      return redirect(reply, consolePage(`/oauth-handoff/${finished.handoffId}`));
    },
  );

  app.post(
    '/console/oauth/handoff',
    describeRoute({
      operationId: 'redeemConsoleHandoff',
      summary: 'Redeem the console’s sign-in handoff',
      description:
        'Once, within 60 seconds, from the browser that signed in (its HttpOnly binding cookie): the access token for the console tab to keep in session storage. The refresh token stays on the server.',
      tags: ['console'],
      auth: 'none',
      bucket: { unmetered: 'each handoff is a single-use 256-bit secret bound to a browser cookie' },
      body: consoleHandoffBodySchema,
      responses: {
        200: {
          description: 'The access token (`Cache-Control: no-store`).',
          body: consoleHandoffResponseSchema,
        },
      },
      errors: ['not_found'],
    }),
    async (request, reply) => {
      consoleSecurityHeaders(reply).header('cache-control', 'no-store');
      const { handoff } = parseInput(consoleHandoffBodySchema, request.body);
      const binding = cookies.readHandoffBinding(request);
      cookies.clearHandoffBinding(reply);
      const redeemed = await consoleSignIn.redeem(handoff, binding);
      if (!redeemed.ok) throw new NotFoundError(HANDOFF_REFUSED);
      return reply.send({
        accessToken: redeemed.accessToken,
        tokenType: 'Bearer',
        workspaceSlug: redeemed.workspaceSlug,
        expiresAt: redeemed.expiresAt,
      });
    },
  );
}

function redirect(reply: FastifyReply, location: string) {
  return consoleSecurityHeaders(reply).header('cache-control', 'no-store').redirect(location, 303);
}

/** A query parameter given once; repeated or absent reads as none. */
function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
