import type { Logger } from 'pino';
import type { AttemptResult, ClaimedDelivery } from '../../domain/webhooks.ts';
import type {
  AttemptOutcome,
  RunMetrics,
  SecretOpener,
  WebhookDeliveryStore,
  WebhookSender,
} from '../ports.ts';
import { webhookPayload, type PayloadSources } from './webhook-payload.ts';

export interface WebhookDelivererOptions extends PayloadSources {
  deliveries: WebhookDeliveryStore;
  sender: WebhookSender;
  secrets: SecretOpener;
  metrics: RunMetrics;
  logger: Logger;
  /** Delays before each retry; after the last, a delivery fails. */
  retryScheduleMs: readonly number[];
  /** How long a claimed attempt holds its delivery: longer than an attempt's 15 s timeout. */
  leaseMs?: number;
  /** The longest sleep between looks at the outbox (deliveries written by other processes). */
  sweepMs?: number;
  /** Attempts this process makes at once. */
  concurrency?: number;
}

const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_SWEEP_MS = 5_000;
const DEFAULT_CONCURRENCY = 8;

/**
 * Delivers the outbox: claims due deliveries (one attempt in flight per delivery across replicas),
 * sends each signed, and records the attempt with the next one's time from the retry schedule.
 * Woken when this process commits deliveries or an attempt ends, and otherwise by a timer set for
 * the next due delivery (at most `sweepMs` away, for deliveries other processes wrote).
 */
export class WebhookDeliverer {
  readonly #options: WebhookDelivererOptions;
  readonly #leaseMs: number;
  readonly #sweepMs: number;
  readonly #concurrency: number;
  readonly #stop = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();
  #draining = false;
  #again = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: WebhookDelivererOptions) {
    this.#options = options;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#sweepMs = options.sweepMs ?? DEFAULT_SWEEP_MS;
    this.#concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  }

  start(): void {
    this.wake();
  }

  /** Looks at the outbox now (deliveries were committed, or one became due). */
  wake(): void {
    if (this.#stop.signal.aborted) return;
    if (this.#draining) {
      this.#again = true;
      return;
    }
    void this.#drain();
  }

  /** Stops claiming; attempts in flight are aborted (their leases expire and another replica retries). */
  async close(): Promise<void> {
    this.#stop.abort();
    clearTimeout(this.#timer);
    await Promise.allSettled([...this.#inFlight]);
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    clearTimeout(this.#timer);
    let sleepMs = this.#sweepMs;
    try {
      do {
        this.#again = false;
        while (!this.#stop.signal.aborted) {
          if (this.#inFlight.size >= this.#concurrency) await Promise.race(this.#inFlight);
          const now = Date.now();
          const leaseUntil = new Date(now + this.#leaseMs).toISOString();
          const claimed = await this.#options.deliveries.claimDue(new Date(now).toISOString(), leaseUntil);
          if (!claimed) break;
          const attempt = this.#attempt(claimed, leaseUntil).finally(() => {
            this.#inFlight.delete(attempt);
            this.wake();
          });
          this.#inFlight.add(attempt);
        }
      } while (this.#again && !this.#stop.signal.aborted);
      const due = await this.#options.deliveries.nextDueAt();
      if (due !== undefined) sleepMs = Math.min(sleepMs, Math.max(0, Date.parse(due) - Date.now()) + 5);
    } catch (error) {
      this.#options.logger.warn({ err: error }, 'webhook deliveries could not be read; trying again');
    } finally {
      this.#draining = false;
    }
    if (this.#stop.signal.aborted) return;
    if (this.#again) return this.wake();
    this.#timer = setTimeout(() => this.wake(), sleepMs);
    this.#timer.unref();
  }

  async #attempt(delivery: ClaimedDelivery, leaseUntil: string): Promise<void> {
    const { deliveries, metrics, logger } = this.#options;
    try {
      const result = await this.#send(delivery);
      if (this.#stop.signal.aborted) return;
      const outcome = this.#outcome(delivery, result);
      await deliveries.recordAttempt(delivery.id, leaseUntil, outcome);
      metrics.webhookDelivery(outcome.status === 'pending' ? 'retrying' : outcome.status);
      logger.info(
        {
          deliveryId: delivery.id,
          runId: delivery.runId,
          event: delivery.event,
          attempt: delivery.attempts + 1,
          statusCode: result.statusCode,
          outcome: outcome.status,
        },
        'webhook attempt',
      );
    } catch (error) {
      // The lease runs out and the delivery is attempted again.
      logger.warn({ err: error, deliveryId: delivery.id }, 'webhook attempt could not be recorded');
    }
  }

  /** One signed attempt; the body is fixed at the first one, so every retry sends the same bytes. */
  async #send(delivery: ClaimedDelivery): Promise<AttemptResult> {
    if (!delivery.endpointEnabled) return { ok: false, statusCode: null, error: 'the endpoint is disabled' };
    const { deliveries, sender, secrets } = this.#options;
    const payload =
      delivery.payload ??
      (await deliveries.fixPayload(delivery.id, await webhookPayload(this.#options, delivery)));
    return sender.send(
      { id: delivery.id, url: delivery.url, payload, secret: secrets.open(delivery.secretSealed) },
      this.#stop.signal,
    );
  }

  #outcome(delivery: ClaimedDelivery, result: AttemptResult): AttemptOutcome {
    if (result.ok) return { result, status: 'succeeded', nextAttemptAt: null };
    const delay = delivery.endpointEnabled ? this.#options.retryScheduleMs[delivery.attempts] : undefined;
    if (delay === undefined) return { result, status: 'failed', nextAttemptAt: null };
    return { result, status: 'pending', nextAttemptAt: new Date(Date.now() + delay).toISOString() };
  }
}
