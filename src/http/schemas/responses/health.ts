/** Answers of the liveness and readiness probes (extensions §1): statuses only, never hosts, versions or errors. */
import { z } from 'zod';

export const livenessSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Liveness' });

export const readinessChecksSchema = z
  .object({
    database: z.enum(['ok', 'unavailable']),
    redis: z
      .enum(['ok', 'unavailable', 'not_configured'])
      .describe('`not_configured` for an embedded service (no REDIS_URL).'),
  })
  .meta({
    id: 'ReadinessChecks',
    description: 'Each store this replica needs; a check that does not answer within 1 s is `unavailable`.',
  });

export const readinessSchema = z
  .object({ status: z.literal('ready'), checks: readinessChecksSchema })
  .meta({ id: 'Readiness' });

export const notReadySchema = z
  .object({
    status: z
      .enum(['unavailable', 'stopping'])
      .describe(
        '`stopping` after SIGTERM while in-flight work drains; `unavailable` while a store does not answer.',
      ),
    checks: readinessChecksSchema,
  })
  .meta({ id: 'NotReady', description: 'This replica should not get traffic now.' });
