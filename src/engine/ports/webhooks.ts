import type {
  AttemptResult,
  ClaimedDelivery,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEvent,
} from '../../domain/webhooks.ts';

export interface NewWebhookEndpoint {
  workspaceId: string;
  url: string;
  events: readonly WebhookEvent[];
  description: string | null;
  enabled: boolean;
  /** The signing secret (`whsec_…`) sealed by the secret box: it signs, so it is kept, not hashed. */
  secretSealed: string;
}

export type WebhookEndpointPatch = Partial<
  Pick<WebhookEndpoint, 'url' | 'events' | 'description' | 'enabled'>
>;

/** A workspace's webhook endpoints (extensions §7). */
export interface WebhookEndpointStore {
  create(input: NewWebhookEndpoint): Promise<WebhookEndpoint>;
  find(workspaceId: string, id: string): Promise<WebhookEndpoint | undefined>;
  list(workspaceId: string): Promise<WebhookEndpoint[]>;
  update(workspaceId: string, id: string, patch: WebhookEndpointPatch): Promise<WebhookEndpoint | undefined>;
  /** False when the workspace has no such endpoint. Its deliveries go with it. */
  delete(workspaceId: string, id: string): Promise<boolean>;
}

/** What comes after one attempt: the delivery's new status and, when pending, its next attempt time. */
export interface AttemptOutcome {
  result: AttemptResult;
  status: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt: string | null;
}

/**
 * The outbox of deliveries. Rows are inserted by the event store in the transaction of the event
 * they announce; this port claims, records and lists them.
 */
export interface WebhookDeliveryStore {
  /**
   * Takes one due delivery for an attempt, leased until `leaseUntil` so no other replica attempts it
   * meanwhile (a crashed attempt's lease expires and the delivery is due again). Undefined when none is due.
   */
  claimDue(now: string, leaseUntil: string): Promise<ClaimedDelivery | undefined>;
  /** The earliest time a pending delivery becomes due (its next attempt or its lease's end). */
  nextDueAt(): Promise<string | undefined>;
  /** Fixes the body every attempt of the delivery sends; the first one written wins. Returns it. */
  fixPayload(id: string, payload: string): Promise<string>;
  /** Records an attempt made under the lease that ends at `leaseUntil` (ignored when the lease was lost). */
  recordAttempt(id: string, leaseUntil: string, outcome: AttemptOutcome): Promise<void>;
  /** The endpoint's deliveries newest first, after `cursor` (a delivery id), `limit` of them. */
  list(endpointId: string, limit: number, cursor: string | undefined): Promise<WebhookDelivery[]>;
  /** Makes the delivery due now (pending again if it had ended). False when the endpoint has no such delivery. */
  retryNow(endpointId: string, deliveryId: string, now: string): Promise<boolean>;
}

/** One attempt to send: the delivery's id (its `webhook-id`), where, the body, the secret in clear. */
export interface WebhookRequest {
  id: string;
  url: string;
  payload: string;
  secret: string;
}

/** Sends one signed attempt of a delivery; never throws: a failure is the result's `error`. */
export interface WebhookSender {
  send(request: WebhookRequest, signal: AbortSignal): Promise<AttemptResult>;
}
