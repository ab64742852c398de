/** Events a webhook endpoint can subscribe to (extensions §7). */
export const WEBHOOK_EVENTS = ['run.succeeded', 'run.failed', 'run.cancelled', 'run.waiting'] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** What an endpoint gets when it names no events: the three terminal ones. */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEvent[] = [
  'run.succeeded',
  'run.failed',
  'run.cancelled',
];

/** Retry delays after a failed attempt, in milliseconds: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS: readonly number[] = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
];

/** How long a receiver has to answer one attempt. */
export const WEBHOOK_ATTEMPT_TIMEOUT_MS = 15_000;

export function isWebhookEvent(name: string): name is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(name);
}

/** The webhook event announcing a run's terminal status, if it is one. */
export function terminalWebhookEvent(status: string): WebhookEvent | undefined {
  if (status === 'succeeded') return 'run.succeeded';
  if (status === 'failed') return 'run.failed';
  if (status === 'cancelled') return 'run.cancelled';
  return undefined;
}

export interface WebhookEndpoint {
  id: string;
  workspaceId: string;
  url: string;
  events: WebhookEvent[];
  description: string | null;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDelivery {
  id: string;
  endpointId: string;
  event: WebhookEvent;
  runId: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

/** A delivery claimed for one attempt: where it goes, the sealed secret to sign with, its body once fixed. */
export interface ClaimedDelivery extends WebhookDelivery {
  url: string;
  secretSealed: string;
  /** An endpoint disabled since the event gets no more attempts. */
  endpointEnabled: boolean;
  workspaceId: string;
  workspaceSlug: string;
  payload: string | null;
}

/** What one attempt came to. */
export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}
