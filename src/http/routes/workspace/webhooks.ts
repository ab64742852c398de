import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { NotFoundError } from '../../../domain/errors.ts';
import { DEFAULT_WEBHOOK_EVENTS, WEBHOOK_EVENTS, type WebhookEndpoint } from '../../../domain/webhooks.ts';
import { describeRoute } from '../../openapi/describe-route.ts';
import { parseInput } from '../../parse.ts';
import { principalOf } from '../../principal-of.ts';
import type { AppResources } from '../../resources.ts';
import {
  createdWebhookEndpointSchema,
  webhookDeliveryListSchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
} from '../../schemas/responses/webhooks.ts';
import { checkWebhookUrl } from '../../webhook-url.ts';

const eventsSchema = z
  .array(z.enum(WEBHOOK_EVENTS, { error: `must be one of ${WEBHOOK_EVENTS.join(', ')}` }))
  .min(1, 'must name at least one event');

const endpointFields = {
  url: z.string().max(2048, 'must be at most 2048 characters'),
  events: eventsSchema.optional(),
  description: z.string().max(1000, 'must be at most 1000 characters').nullable().optional(),
  enabled: z.boolean().optional(),
};

const createSchema = z.strictObject(endpointFields).meta({ id: 'CreateWebhookEndpoint' });
const patchSchema = z
  .strictObject({ ...endpointFields, url: endpointFields.url.optional() })
  .meta({ id: 'UpdateWebhookEndpoint' });

const deliveriesQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(64).optional(),
});

/** Webhooks are API keys only: an access token is refused with `403 insufficient_scope`, `required: "api_key"`. */
const API_KEYS_ONLY = { scopes: [], bucket: 'lifecycle', tags: ['webhooks'] } as const;

function endpointView(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    enabled: endpoint.enabled,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  };
}

function webhookNotFound(): NotFoundError {
  return new NotFoundError('Webhook not found');
}

/** `{ws}/webhooks`: a workspace's endpoints, their delivery log and manual retry (extensions §7). */
export function webhookRoutes(app: FastifyInstance, resources: AppResources): void {
  const { repos, secretBox, config } = resources;

  app.post(
    '/webhooks',
    describeRoute({
      ...API_KEYS_ONLY,
      operationId: 'createWebhook',
      summary: 'Create a webhook endpoint',
      description:
        'Events default to the three terminal ones. The answer holds the signing secret, shown only here.',
      body: createSchema,
      responses: {
        201: { description: 'The endpoint, with its secret.', body: createdWebhookEndpointSchema },
      },
    }),
    async (request, reply) => {
      const body = parseInput(createSchema, request.body);
      const url = await checkWebhookUrl(body.url, config.fetchAllow);
      const secret = `whsec_${randomBytes(32).toString('base64')}`;
      const endpoint = await repos.webhookEndpoints.create({
        workspaceId: principalOf(request).workspace.id,
        url,
        events: body.events ? [...new Set(body.events)] : DEFAULT_WEBHOOK_EVENTS,
        description: body.description ?? null,
        enabled: body.enabled ?? true,
        secretSealed: secretBox.seal(secret),
      });
      return reply.status(201).send({ ...endpointView(endpoint), secret });
    },
  );

  app.get(
    '/webhooks',
    describeRoute({
      ...API_KEYS_ONLY,
      bucket: 'transport',
      operationId: 'listWebhooks',
      summary: "List the workspace's webhook endpoints",
      responses: { 200: { description: 'The endpoints, without secrets.', body: webhookEndpointListSchema } },
    }),
    async (request) => ({
      webhooks: (await repos.webhookEndpoints.list(principalOf(request).workspace.id)).map(endpointView),
    }),
  );

  app.get<{ Params: { webhookId: string } }>(
    '/webhooks/:webhookId',
    describeRoute({
      ...API_KEYS_ONLY,
      bucket: 'transport',
      operationId: 'getWebhook',
      summary: 'Read a webhook endpoint',
      responses: { 200: { description: 'The endpoint, without its secret.', body: webhookEndpointSchema } },
      errors: ['not_found'],
    }),
    async (request) => {
      const endpoint = await repos.webhookEndpoints.find(
        principalOf(request).workspace.id,
        request.params.webhookId,
      );
      if (!endpoint) throw webhookNotFound();
      return endpointView(endpoint);
    },
  );

  app.patch<{ Params: { webhookId: string } }>(
    '/webhooks/:webhookId',
    describeRoute({
      ...API_KEYS_ONLY,
      operationId: 'updateWebhook',
      summary: 'Change a webhook endpoint',
      body: patchSchema,
      responses: { 200: { description: 'The endpoint as changed.', body: webhookEndpointSchema } },
      errors: ['not_found'],
    }),
    async (request) => {
      const body = parseInput(patchSchema, request.body);
      const url = body.url === undefined ? undefined : await checkWebhookUrl(body.url, config.fetchAllow);
      const endpoint = await repos.webhookEndpoints.update(
        principalOf(request).workspace.id,
        request.params.webhookId,
        {
          ...(url !== undefined && { url }),
          ...(body.events !== undefined && { events: [...new Set(body.events)] }),
          ...(body.description !== undefined && { description: body.description }),
          ...(body.enabled !== undefined && { enabled: body.enabled }),
        },
      );
      if (!endpoint) throw webhookNotFound();
      return endpointView(endpoint);
    },
  );

  app.delete<{ Params: { webhookId: string } }>(
    '/webhooks/:webhookId',
    describeRoute({
      ...API_KEYS_ONLY,
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook endpoint and its delivery log',
      responses: { 204: { description: 'Deleted.' } },
      errors: ['not_found'],
    }),
    async (request, reply) => {
      const deleted = await repos.webhookEndpoints.delete(
        principalOf(request).workspace.id,
        request.params.webhookId,
      );
      if (!deleted) throw webhookNotFound();
      return reply.status(204).send();
    },
  );

  app.get<{ Params: { webhookId: string } }>(
    '/webhooks/:webhookId/deliveries',
    describeRoute({
      ...API_KEYS_ONLY,
      bucket: 'transport',
      operationId: 'listWebhookDeliveries',
      summary: "An endpoint's delivery log, newest first",
      query: deliveriesQuerySchema,
      responses: { 200: { description: 'A page of deliveries.', body: webhookDeliveryListSchema } },
      errors: ['not_found'],
    }),
    async (request) => {
      const query = parseInput(deliveriesQuerySchema, request.query, 'query');
      const endpoint = await repos.webhookEndpoints.find(
        principalOf(request).workspace.id,
        request.params.webhookId,
      );
      if (!endpoint) throw webhookNotFound();
      const page = await repos.webhookDeliveries.list(endpoint.id, query.limit + 1, query.cursor);
      const deliveries = page.slice(0, query.limit).map(({ endpointId: _endpoint, ...delivery }) => delivery);
      return {
        deliveries,
        nextCursor: page.length > query.limit ? (deliveries.at(-1)?.id ?? null) : null,
      };
    },
  );

  app.post<{ Params: { webhookId: string; deliveryId: string } }>(
    '/webhooks/:webhookId/deliveries/:deliveryId/retry',
    describeRoute({
      ...API_KEYS_ONLY,
      operationId: 'retryWebhookDelivery',
      summary: 'Send a delivery again now',
      description: 'The delivery is attempted again at once, with the same `webhook-id`.',
      responses: { 202: { description: 'The delivery is due again.' } },
      errors: ['not_found'],
    }),
    async (request, reply) => {
      const endpoint = await repos.webhookEndpoints.find(
        principalOf(request).workspace.id,
        request.params.webhookId,
      );
      const retried =
        endpoint !== undefined &&
        (await repos.webhookDeliveries.retryNow(
          endpoint.id,
          request.params.deliveryId,
          new Date().toISOString(),
        ));
      if (!retried) throw new NotFoundError('Delivery not found');
      resources.engine.wakeWebhooks?.();
      return reply.status(202).send();
    },
  );
}
