import type { FastifyInstance } from 'fastify';
import { idempotentCreation, meteringDeferred } from '../../plugins/idempotent-creation.ts';
import { bucketMeter, rateLimit } from '../../plugins/rate-limit.ts';
import { authenticateScope } from '../../plugins/workspace-auth.ts';
import type { AppResources } from '../../resources.ts';
import { feedbackRoutes } from './feedback.ts';
import { modelRoutes } from './models.ts';
import { runListRoutes } from './run-list.ts';
import { runRoutes } from './runs.ts';
import { sessionRoutes } from './sessions.ts';
import { scheduleRoutes } from './schedules.ts';
import { webhookRoutes } from './webhooks.ts';

/** Every route under `/api/v1/workspaces/:workspaceSlug`, behind the credential check. */
export async function workspaceRoutes(app: FastifyInstance, options: { resources: AppResources }) {
  const { repos } = options.resources;
  // onRequest: a request without a valid credential, or past its rate limit, is refused before its
  // body is read and parsed (up to 64 MiB).
  authenticateScope(app, repos, { checkSlug: true });
  const { rateCounters } = options.resources;
  // A creation whose Idempotency-Key is already known may be a replay, which uses no capacity of its
  // route: it is metered once the body tells (the idempotency preHandler).
  const idempotency = idempotentCreation({ store: repos.idempotencyKeys, meter: bucketMeter(rateCounters) });
  app.decorateRequest('idempotency', null);
  app.addHook('onRequest', idempotency.onRequest);
  app.addHook('onRequest', rateLimit({ counters: rateCounters, deferred: meteringDeferred }));
  app.addHook('preHandler', idempotency.preHandler);
  app.addHook('onSend', idempotency.onSend);
  for (const register of [
    modelRoutes,
    runRoutes,
    runListRoutes,
    feedbackRoutes,
    sessionRoutes,
    webhookRoutes,
    scheduleRoutes,
  ])
    register(app, options.resources);
}
