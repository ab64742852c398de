import type { FastifyInstance } from 'fastify';
import { describeRoute } from '../openapi/describe-route.ts';
import type { AppResources } from '../resources.ts';
import { livenessSchema, notReadySchema, readinessSchema } from '../schemas/responses/health.ts';

/** A store that has not answered within this is `unavailable` (extensions §1). */
const CHECK_TIMEOUT_MS = 1000;

type CheckStatus = 'ok' | 'unavailable';

/** `ok` if `probe` answers within a second; anything else (a failure, no answer) is `unavailable`. */
async function check(probe: () => Promise<void>): Promise<CheckStatus> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<CheckStatus>((resolve) => {
    timer = setTimeout(() => resolve('unavailable'), CHECK_TIMEOUT_MS);
  });
  const answered = probe().then(
    (): CheckStatus => 'ok',
    (): CheckStatus => 'unavailable',
  );
  try {
    return await Promise.race([answered, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Liveness answers while the process serves HTTP. Readiness checks the database and Redis (each
 * within a second) and says `stopping` from SIGTERM on, while in-flight work drains, so that a load
 * balancer stops sending traffic before the process goes. Neither is rate-limited.
 */
export function healthRoutes(
  app: FastifyInstance,
  { storage, redis, stopping }: Pick<AppResources, 'storage' | 'redis' | 'stopping'>,
): void {
  app.get(
    '/healthz',
    describeRoute({
      operationId: 'getLiveness',
      summary: 'Liveness',
      tags: ['health'],
      auth: 'none',
      bucket: { unmetered: 'a probe of the orchestrator, not of a client' },
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
      bucket: { unmetered: 'a probe of the orchestrator, not of a client' },
      responses: {
        200: { description: 'The database (and Redis, in scale-out) answer.', body: readinessSchema },
        503: {
          description: 'A store does not answer within 1 s, or the process is stopping (after SIGTERM).',
          body: notReadySchema,
        },
      },
    }),
    async (request, reply) => {
      const [database, redisCheck] = await Promise.all([
        check(() => storage.ping()),
        redis ? check(() => redis.ping()) : Promise.resolve('not_configured' as const),
      ]);
      const checks = { database, redis: redisCheck };
      if (stopping.aborted) return reply.status(503).send({ status: 'stopping', checks });
      if (database !== 'ok' || redisCheck === 'unavailable') {
        request.log.warn({ checks }, 'not ready');
        return reply.status(503).send({ status: 'unavailable', checks });
      }
      return { status: 'ready', checks };
    },
  );
}
