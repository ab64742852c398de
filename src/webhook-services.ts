import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { RunMetrics, SecretOpener } from './engine/ports.ts';
import { WebhookDeliverer } from './engine/webhooks/webhook-deliverer.ts';
import type { RedisChannels } from './infra/redis-channels.ts';
import { StandardWebhookSender } from './infra/webhook-sender.ts';
import type { Repositories } from './storage/repositories/index.ts';
import { lazyGuardedFetch } from './tools/fetch-guard/lazy-guarded-fetch.ts';

export interface WebhookResources {
  config: Config;
  logger: Logger;
  repos: Repositories;
  secretBox: SecretOpener;
  metrics: RunMetrics;
  wakes: WebhookWakes;
}

/**
 * Starts delivering the webhook outbox in this process (worker processes and the embedded one): each
 * attempt signed, sent through the same SSRF guard as server-side tools, never following a redirect.
 */
export function startWebhookDeliveries(resources: WebhookResources): {
  deliverer: WebhookDeliverer;
  stop: () => Promise<void>;
} {
  const { config, logger, repos } = resources;
  const deliverer = new WebhookDeliverer({
    deliveries: repos.webhookDeliveries,
    runs: repos.runs,
    events: repos.runEvents,
    sender: new StandardWebhookSender(lazyGuardedFetch({ allow: config.fetchAllow })),
    secrets: resources.secretBox,
    metrics: resources.metrics,
    logger,
    retryScheduleMs: config.webhookRetryScheduleMs,
  });
  const stopListening = resources.wakes.listen(() => deliverer.wake());
  deliverer.start();
  return {
    deliverer,
    stop: async () => {
      stopListening();
      await deliverer.close();
    },
  };
}

/** Tells the deliverers of every process that deliveries are due now (an API replica has none of its own). */
export interface WebhookWakes {
  announce(): void;
  /** Calls `wake` on each announcement; returns the function that stops listening. */
  listen(wake: () => void): () => void;
}

/**
 * Scale-out: a Redis channel, so a delivery committed or retried on an API replica is sent now by a
 * worker rather than at its next look at the outbox. Embedded: the one process's own deliverer.
 */
export function webhookWakes(redis: RedisChannels | undefined, prefix: string): WebhookWakes {
  if (!redis) {
    const listeners = new Set<() => void>();
    return {
      announce: () => listeners.forEach((wake) => wake()),
      listen: (wake) => {
        listeners.add(wake);
        return () => listeners.delete(wake);
      },
    };
  }
  const channel = `${prefix}:webhooks:due`;
  return {
    // A lost announcement costs only delay: deliverers look at the outbox on a timer too.
    announce: () => void redis.publish(channel, '1').catch(() => undefined),
    listen: (wake) => redis.listen(channel, () => wake()).stop,
  };
}
