/**
 * The worker process of the scale-out test deployment: the service with `AGENT_RUNS_ROLE=worker`,
 * as `agent-runs worker` starts it, plus the test's engine options (short retry delays, grace
 * periods) that have no environment variable. It is started ahead of need (the imports are most of a
 * start), then reads its deployment from one JSON line on stdin (`TestWorkerSetup`), prints
 * `worker ready` once it takes runs, and stops on SIGTERM like the CLI's worker (runs in progress are
 * handed over). Its stdin closing before the setup came (the test process is gone) ends it.
 */
import { createInterface } from 'node:readline';
import type { ResourceLimits } from 'node:worker_threads';
import { assertRoleRequirements, loadConfig } from '../../src/config.ts';
import { onShutdownSignal } from '../../src/cli/shutdown.ts';
import { createLogger } from '../../src/logger.ts';
import { createService, type EngineOptions } from '../../src/main.ts';
// Loaded by the service on first use; loaded here, they are ready before the setup comes.
import '../../src/infra/scale-out-transport.ts';
import 'pg';

export interface TestWorkerSetup {
  /** The deployment's environment (DATABASE_URL, REDIS_URL, …), over the process's own. */
  env: Record<string, string>;
  dev?: boolean;
  engine?: EngineOptions;
  modelThreadResourceLimits?: ResourceLimits;
}

const setup = await setupLine();
if (setup === undefined) process.exit(0);
const config = { ...loadConfig({ ...process.env, ...setup.env }), role: 'worker' as const };
assertRoleRequirements(config);
const logger = createLogger(config.logLevel);
const service = await createService(config, {
  logger,
  dev: setup.dev ?? false,
  ...(setup.engine && { engine: setup.engine }),
  ...(setup.modelThreadResourceLimits && { modelThreadResourceLimits: setup.modelThreadResourceLimits }),
});
onShutdownSignal(() => service.close());
const management = await service.listenManagement();
if (management) process.stdout.write(`metrics listening on ${management}\n`);
process.stdout.write('worker ready\n');

async function setupLine(): Promise<TestWorkerSetup | undefined> {
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    lines.close();
    return JSON.parse(line) as TestWorkerSetup;
  }
  return undefined;
}
