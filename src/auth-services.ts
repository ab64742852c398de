import { ConsoleSignIn } from './auth/console/console-sign-in.ts';
import { AuthorizationPagesFlow } from './auth/oauth/authorization-pages-flow.ts';
import { AuthorizationServer } from './auth/oauth/authorization-server.ts';
import { BrowserSessions } from './auth/oauth/browser-sessions.ts';
import { WorkspaceCredentials } from './auth/workspace-credentials.ts';
import type { RateCounters } from './engine/ports.ts';
import type { AppResources } from './http/resources.ts';
import type { Repositories } from './storage/repositories/index.ts';

/**
 * The composition root's wiring of auth/ onto storage: the service that creates credentials, the
 * OAuth authorization server, the sign-in and consent flow of its pages, and the console's sign-in.
 */
export function authServices(
  repos: Repositories,
  rateCounters: RateCounters,
): Pick<AppResources, 'credentials' | 'oauth' | 'consoleSignIn'> {
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
  const consoleSignIn = new ConsoleSignIn(
    { workspaces: repos.workspaces, oauthApps: repos.oauthApps, handoffs: repos.consoleHandoffs },
    server,
  );
  return { credentials, oauth: { server, pages }, consoleSignIn };
}
