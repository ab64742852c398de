import { assertRoleRequirements, loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { migrateToLatest, openStorage } from '../storage/database.ts';
import { onShutdownSignal } from './shutdown.ts';

/**
 * `agent-runs worker`: a worker process on PostgreSQL and Redis. It checks its
 * configuration and storage; runs are dispatched to it once the run engine's
 * Redis queue is in place (see the README's status section).
 */
export async function worker(): Promise<void> {
  const config = loadConfig({ ...process.env, AGENT_RUNS_ROLE: 'worker' });
  assertRoleRequirements(config);
  const logger = createLogger(config.logLevel);
  const storage = openStorage(config.storage);
  await migrateToLatest(storage);
  logger.info({ role: 'worker' }, 'worker ready');
  process.stdout.write('worker ready\n');
  onShutdownSignal(async () => {
    await storage.close();
  });
}
