import { AuthorizationPagesFlow } from './auth/oauth/authorization-pages-flow.ts';
import { AuthorizationServer } from './auth/oauth/authorization-server.ts';
import { BrowserSessions } from './auth/oauth/browser-sessions.ts';
import { WorkspaceCredentials } from './auth/workspace-credentials.ts';
import type { RateCounters } from './engine/ports.ts';
import type { AppResources } from './http/resources.ts';
import type { Repositories } from './storage/repositories/index.ts';

/**
 * The composition root's wiring of auth/ onto storage: the service that creates credentials, the
 * OAuth authorization server, and the sign-in and consent flow of its pages.
 */
export function authServices(
  repos: Repositories,
  rateCounters: RateCounters,
): Pick<AppResources, 'credentials' | 'oauth'> {
  const server = new AuthorizationServer(repos.oauth);
  const pages = new AuthorizationPagesFlow(
    {
      oauth: repos.oauth,
      flow: repos.oauthFlow,
      users: repos.users,
      agents: repos.agents,
      rateCounters,
    },
    server,
    new BrowserSessions(repos.oauthFlow),
  );
  const credentials = new WorkspaceCredentials({
    apiKeys: repos.apiKeys,
    agents: repos.agents,
    users: repos.users,
    oauthApps: repos.oauthApps,
  });
  return { credentials, oauth: { server, pages } };
}
