import cookie from '@fastify/cookie';
import formBody from '@fastify/formbody';
import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { SessionCookie } from '../../oauth/session-cookie.ts';
import type { AppResources } from '../../resources.ts';
import { authorizationPages } from './authorization-pages.ts';
import { tokenEndpoints } from './token-endpoints.ts';
import { userinfoRoute } from './userinfo.ts';

/** The OAuth 2.0 authorization server: discovery, the authorization pages, token, revocation, userinfo. */
export async function oauthRoutes(app: FastifyInstance, options: { resources: AppResources }) {
  const { resources } = options;
  // Form posts (sign-in, consent, token, revocation) get the default 1 MiB body limit.
  await app.register(formBody);
  // A key of its own for signing cookies, derived from the service secret.
  await app.register(cookie, {
    secret: createHmac('sha256', resources.serviceSecret).update('oauth-browser-session').digest('base64url'),
  });
  const { server, pages } = resources.oauth;
  const secure = resources.config.publicUrl?.startsWith('https:') ?? false;
  authorizationPages(app, resources, { flow: pages, cookie: new SessionCookie({ secure }) });
  tokenEndpoints(app, resources, { server });
  await app.register(userinfoRoute, { resources });
}
