import type { FastifyInstance } from 'fastify';
import { rateLimit } from '../../plugins/rate-limit.ts';
import { workspaceAuth } from '../../plugins/workspace-auth.ts';
import type { AppResources } from '../../resources.ts';
import { feedbackRoutes } from './feedback.ts';
import { modelRoutes } from './models.ts';
import { runListRoutes } from './run-list.ts';
import { runRoutes } from './runs.ts';
import { sessionRoutes } from './sessions.ts';
import { webhookRoutes } from './webhooks.ts';

/** Every route under `/api/v1/workspaces/:workspaceSlug`, behind the credential check. */
export async function workspaceRoutes(app: FastifyInstance, options: { resources: AppResources }) {
  const { repos } = options.resources;
  app.decorateRequest('principal', null);
  // onRequest: a request without a valid credential, or past its rate limit, is refused before its
  // body is read and parsed (up to 64 MiB).
  app.addHook(
    'onRequest',
    workspaceAuth({
      apiKeys: repos.apiKeys,
      oauth: repos.oauth,
      workspaces: repos.workspaces,
      checkSlug: true,
    }),
  );
  app.addHook('onRequest', rateLimit({ counters: options.resources.rateCounters }));
  for (const register of [
    modelRoutes,
    runRoutes,
    runListRoutes,
    feedbackRoutes,
    sessionRoutes,
    webhookRoutes,
  ])
    register(app, options.resources);
}
