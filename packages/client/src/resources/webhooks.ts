import type { RequestOptions } from '../http-transport.ts';
import type {
  CreatedWebhookEndpoint,
  CreateWebhookEndpoint,
  UpdateWebhookEndpoint,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointList,
} from '../types.ts';
import { segment, type WorkspaceContext } from './workspace-context.ts';

/**
 * `{ws}/webhooks` (API keys only): endpoints that receive signed run events, their delivery log and
 * manual retry. Verify deliveries with the `standardwebhooks` package and the endpoint's secret.
 */
export class WebhooksResource {
  readonly #context: WorkspaceContext;

  constructor(context: WorkspaceContext) {
    this.#context = context;
  }

  /** The answer holds the signing secret (`whsec_…`), shown only here. */
  create(body: CreateWebhookEndpoint, options: RequestOptions = {}): Promise<CreatedWebhookEndpoint> {
    return this.#context.transport.json({ method: 'POST', path: this.#path(), body, ...options });
  }

  list(options: RequestOptions = {}): Promise<WebhookEndpointList> {
    return this.#context.transport.json({ method: 'GET', path: this.#path(), ...options });
  }

  get(webhookId: string, options: RequestOptions = {}): Promise<WebhookEndpoint> {
    return this.#context.transport.json({ method: 'GET', path: this.#path(webhookId), ...options });
  }

  update(
    webhookId: string,
    body: UpdateWebhookEndpoint,
    options: RequestOptions = {},
  ): Promise<WebhookEndpoint> {
    return this.#context.transport.json({ method: 'PATCH', path: this.#path(webhookId), body, ...options });
  }

  async delete(webhookId: string, options: RequestOptions = {}): Promise<void> {
    await this.#context.transport.json({ method: 'DELETE', path: this.#path(webhookId), ...options });
  }

  /** The endpoint's deliveries, newest first; pass `nextCursor` back as `cursor` for the next page. */
  deliveries(
    webhookId: string,
    query: { limit?: number; cursor?: string } = {},
    options: RequestOptions = {},
  ): Promise<WebhookDeliveryList> {
    return this.#context.transport.json({
      method: 'GET',
      path: `${this.#path(webhookId)}/deliveries`,
      query: { limit: query.limit, cursor: query.cursor },
      ...options,
    });
  }

  /** Sends the delivery again now, with the same `webhook-id`. */
  async retryDelivery(webhookId: string, deliveryId: string, options: RequestOptions = {}): Promise<void> {
    await this.#context.transport.json({
      method: 'POST',
      path: `${this.#path(webhookId)}/deliveries/${segment(deliveryId)}/retry`,
      ...options,
    });
  }

  #path(webhookId?: string): string {
    const base = `${this.#context.workspacePath}/webhooks`;
    return webhookId === undefined ? base : `${base}/${segment(webhookId)}`;
  }
}
