import type { FastifyInstance } from 'fastify';
import type { AppResources } from '../resources.ts';

/** Liveness answers while the process serves HTTP; readiness also needs the database. */
export function healthRoutes(app: FastifyInstance, { storage, redis }: AppResources): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (request, reply) => {
    try {
      await storage.ping();
      await redis?.ping();
      return { status: 'ready' };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      return reply.status(503).send({
        status: 'unavailable',
        error: 'storage_unavailable',
        message: 'database or Redis not reachable',
      });
    }
  });
}
