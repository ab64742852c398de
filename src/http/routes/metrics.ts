import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { credentialFrom } from '../../auth/authenticate.ts';
import { describeRoute } from '../openapi/describe-route.ts';
import type { AppResources } from '../resources.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

const METRICS_DESCRIPTION =
  'The Prometheus text exposition of this process’s metrics (extensions §2), for ' +
  '`Authorization: Bearer <AGENT_RUNS_METRICS_TOKEN>`, or the admin token when that is unset. ' +
  'Not registered when neither token is configured (404).';

/**
 * `GET /metrics` (extensions §2): for the metrics token, or the admin token when none is set; not
 * registered at all (404) when neither is configured. Not rate-limited: the scraper's, not a client's.
 */
export function metricsRoutes(app: FastifyInstance, { config, adminToken, metrics }: AppResources): void {
  const token = config.metricsToken ?? adminToken;
  if (token === undefined) return;
  const expected = digest(token);
  app.get(
    '/metrics',
    describeRoute({
      operationId: 'getMetrics',
      summary: 'Prometheus metrics',
      description: METRICS_DESCRIPTION,
      tags: ['health'],
      auth: 'admin',
      bucket: { unmetered: 'a scrape of the monitoring system, not of a client' },
      responses: {
        200: { description: 'The metrics, `text/plain; version=0.0.4`.', contentType: 'text/plain' },
      },
    }),
    async (request, reply) => {
      const presented = credentialFrom(request.headers);
      if (presented === undefined) {
        return reply.status(401).send({
          error: 'unauthorized',
          message: 'missing metrics token: send Authorization: Bearer <AGENT_RUNS_METRICS_TOKEN>',
        });
      }
      if (!timingSafeEqual(digest(presented), expected)) {
        return reply.status(401).send({ error: 'unauthorized', message: 'invalid metrics token' });
      }
      return reply.header('content-type', metrics.contentType).send(await metrics.text());
    },
  );
}
