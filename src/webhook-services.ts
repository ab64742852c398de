import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { RunMetrics, SecretOpener } from './engine/ports.ts';
import { WebhookDeliverer } from './engine/webhooks/webhook-deliverer.ts';
import { StandardWebhookSender } from './infra/webhook-sender.ts';
import type { Repositories } from './storage/repositories/index.ts';
import { lazyGuardedFetch } from './tools/fetch-guard/lazy-guarded-fetch.ts';

export interface WebhookResources {
  config: Config;
  logger: Logger;
  repos: Repositories;
  secretBox: SecretOpener;
  metrics: RunMetrics;
}

/**
 * Starts delivering the webhook outbox in this process (worker processes and the embedded one): each
 * attempt signed, sent through the same SSRF guard as server-side tools, never following a redirect.
 */
export function startWebhookDeliveries(resources: WebhookResources): WebhookDeliverer {
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
  deliverer.start();
  return deliverer;
}
