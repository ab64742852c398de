import { assertRoleRequirements, loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { createService } from '../main.ts';
import type { CliIo } from './cli-io.ts';
import { onShutdownSignal } from './shutdown.ts';

/**
 * `agent-runs worker`: executes runs from the Redis queue (PostgreSQL storage,
 * Redis queue and signals) and serves no HTTP. On SIGTERM it stops taking
 * runs, lets runs in progress finish within a grace period, and hands the rest
 * back to the queue for another worker.
 */
export async function worker(io: CliIo): Promise<void> {
  const config = { ...loadConfig(io.env), role: 'worker' as const };
  assertRoleRequirements(config);
  const logger = createLogger(config.logLevel);
  const service = await createService(config, { logger, dev: false, startModelThreads: true });
  onShutdownSignal(async (signal) => {
    logger.info({ signal }, 'worker shutting down');
    await service.close();
  });
  const management = await service.listenManagement();
  if (management) io.stdout.write(`metrics listening on ${management}\n`);
  logger.info({ role: 'worker', concurrency: config.workerConcurrency }, 'worker ready');
  io.stdout.write('worker ready\n');
}
