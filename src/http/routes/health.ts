import type { FastifyInstance } from 'fastify';
import { describeRoute } from '../openapi/describe-route.ts';
import type { AppResources } from '../resources.ts';
import { livenessSchema, readinessSchema, unavailableSchema } from '../schemas/responses/health.ts';

/** Liveness answers while the process serves HTTP; readiness also needs the database. */
export function healthRoutes(app: FastifyInstance, { storage, redis }: AppResources): void {
  app.get(
    '/healthz',
    describeRoute({
      operationId: 'getLiveness',
      summary: 'Liveness',
      tags: ['health'],
      auth: 'none',
      responses: { 200: { description: 'The process serves HTTP.', body: livenessSchema } },
    }),
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    describeRoute({
      operationId: 'getReadiness',
      summary: 'Readiness',
      tags: ['health'],
      auth: 'none',
      responses: {
        200: { description: 'The database (and Redis, in scale-out) answers.', body: readinessSchema },
        503: { description: 'The database or Redis does not answer.', body: unavailableSchema },
      },
    }),
    async (request, reply) => {
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
    },
  );
}
