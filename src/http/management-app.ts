import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { RequestLogController } from './plugins/request-log.ts';
import type { AppResources } from './resources.ts';
import { healthRoutes } from './routes/health.ts';

/**
 * The management listener of `AGENT_RUNS_METRICS_PORT` (extensions §2): `/metrics`, `/healthz` and
 * `/readyz` without a credential, on every process (workers too). Only the operator's network
 * should reach it.
 */
export async function buildManagementApp(
  resources: Pick<AppResources, 'storage' | 'redis' | 'stopping' | 'metrics'>,
  options: { logger: FastifyBaseLogger },
): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: options.logger,
    logController: new RequestLogController(),
    return503OnClosing: true,
  });
  healthRoutes(app, resources);
  app.get('/metrics', async (_request, reply) =>
    reply.header('content-type', resources.metrics.contentType).send(await resources.metrics.text()),
  );
  await app.ready();
  return app;
}
