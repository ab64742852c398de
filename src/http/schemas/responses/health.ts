/** Answers of the liveness and readiness probes. */
import { z } from 'zod';

export const livenessSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Liveness' });

export const readinessSchema = z.object({ status: z.literal('ready') }).meta({ id: 'Readiness' });

export const unavailableSchema = z
  .object({
    status: z.literal('unavailable'),
    error: z.literal('storage_unavailable'),
    message: z.string(),
  })
  .meta({ id: 'Unavailable', description: 'The database (or Redis) does not answer.' });
