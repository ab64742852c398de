import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { registerErrorHandling } from './plugins/error-handler.ts';
import { registerJsonBodyParser } from './plugins/json-body.ts';
import type { AppResources } from './resources.ts';
import { adminRoutes } from './routes/admin/index.ts';
import { healthRoutes } from './routes/health.ts';
import { workspaceRoutes } from './routes/workspace/index.ts';

export interface BuildAppOptions {
  logger: FastifyBaseLogger;
}

/** The HTTP application: routes and plugins only; adapters come in through `resources`. */
export async function buildApp(resources: AppResources, options: BuildAppOptions): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: options.logger,
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    // Requests Fastify rejects before routing (a malformed URL, bad percent-encoding) get our error shape too.
    frameworkErrors: (error, _request, reply) => {
      void (reply as FastifyReply).status(400).send({ error: 'invalid_request', message: error.message });
    },
  });
  registerErrorHandling(app);
  registerJsonBodyParser(app);
  healthRoutes(app, resources);
  await app.register(workspaceRoutes, { prefix: '/api/v1/workspaces/:workspaceSlug', resources });
  if (resources.adminToken) {
    await app.register(adminRoutes, { prefix: '/admin/v1', resources, token: resources.adminToken });
  }
  return app;
}
