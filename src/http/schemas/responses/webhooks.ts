/** Answers of the webhook routes (extensions §7). */
import { z } from 'zod';
import { WEBHOOK_EVENTS } from '../../../domain/webhooks.ts';

const isoDate = z.string().describe('ISO 8601 date-time.');

export const webhookEventSchema = z.enum(WEBHOOK_EVENTS).meta({ id: 'WebhookEvent' });

export const webhookEndpointSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(webhookEventSchema),
    description: z.string().nullable(),
    enabled: z.boolean(),
    createdAt: isoDate,
    updatedAt: isoDate,
  })
  .meta({ id: 'WebhookEndpoint', description: 'A webhook endpoint, without its secret.' });

export const createdWebhookEndpointSchema = webhookEndpointSchema
  .extend({
    secret: z
      .string()
      .describe('`whsec_` + base64 of 32 random bytes: the signing secret, shown only in this answer.'),
  })
  .meta({ id: 'CreatedWebhookEndpoint' });

export const webhookEndpointListSchema = z
  .object({ webhooks: z.array(webhookEndpointSchema) })
  .meta({ id: 'WebhookEndpointList' });

export const webhookDeliverySchema = z
  .object({
    id: z.string().describe('The `webhook-id` header of every attempt.'),
    event: webhookEventSchema,
    runId: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.number().int(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    nextAttemptAt: isoDate.nullable(),
    createdAt: isoDate,
  })
  .meta({ id: 'WebhookDelivery' });

export const webhookDeliveryListSchema = z
  .object({
    deliveries: z.array(webhookDeliverySchema),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last.'),
  })
  .meta({ id: 'WebhookDeliveryList' });
