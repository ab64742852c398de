/**
 * The worker process of the scale-out test deployment: the service with `AGENT_RUNS_ROLE=worker`
 * from the environment, as `agent-runs worker` starts it, plus the test's engine options (short
 * retry delays, grace periods) that have no environment variable. Prints `worker ready` once it
 * takes runs; stops on SIGTERM like the CLI's worker (runs in progress are handed over).
 */
import type { ResourceLimits } from 'node:worker_threads';
import { assertRoleRequirements, loadConfig } from '../../src/config.ts';
import { onShutdownSignal } from '../../src/cli/shutdown.ts';
import { createLogger } from '../../src/logger.ts';
import { createService, type EngineOptions } from '../../src/main.ts';

/** What the test deployment passes in `AGENT_RUNS_TEST_WORKER_OPTIONS` (JSON). */
export interface TestWorkerOptions {
  pgSchema?: string;
  dev?: boolean;
  engine?: EngineOptions;
  modelThreadResourceLimits?: ResourceLimits;
}

const options = JSON.parse(process.env.AGENT_RUNS_TEST_WORKER_OPTIONS ?? '{}') as TestWorkerOptions;
const config = { ...loadConfig(), role: 'worker' as const };
assertRoleRequirements(config);
const logger = createLogger(config.logLevel);
const service = await createService(config, {
  logger,
  dev: options.dev ?? false,
  startModelThreads: true,
  ...(options.pgSchema && { storage: { pgSchema: options.pgSchema } }),
  ...(options.engine && { engine: options.engine }),
  ...(options.modelThreadResourceLimits && { modelThreadResourceLimits: options.modelThreadResourceLimits }),
});
onShutdownSignal(() => service.close());
process.stdout.write('worker ready\n');
