import type { FastifyInstance } from 'fastify';
import { adminAuth } from '../../plugins/admin-auth.ts';
import type { AppResources } from '../../resources.ts';
import { adminAgentRoutes } from './agents.ts';
import { adminApiKeyRoutes } from './api-keys.ts';
import { adminIdentityRoutes } from './identities.ts';
import { adminOfferingRoutes } from './offerings.ts';
import { adminProviderRoutes } from './providers.ts';
import { adminToolRoutes } from './tools.ts';
import { adminWorkspaceRoutes } from './workspaces.ts';

/** `/admin/v1`: registered only when an admin token is configured. */
export async function adminRoutes(app: FastifyInstance, options: { resources: AppResources; token: string }) {
  // onRequest: a request without the token is refused before its body is read.
  app.addHook('onRequest', adminAuth({ token: options.token }));
  for (const register of [
    adminWorkspaceRoutes,
    adminApiKeyRoutes,
    adminOfferingRoutes,
    adminProviderRoutes,
    adminAgentRoutes,
    adminToolRoutes,
    adminIdentityRoutes,
  ]) {
    register(app, options.resources);
  }
}
