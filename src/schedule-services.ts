import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { RunService } from './engine/lifecycle/run-service.ts';
import type { SessionService } from './engine/lifecycle/session-service.ts';
import type { RateCounters, RunMetrics } from './engine/ports.ts';
import { ScheduleFirer } from './engine/schedules/schedule-firer.ts';
import type { Repositories } from './storage/repositories/index.ts';

export interface ScheduleFirerResources {
  config: Config;
  logger: Logger;
  repos: Repositories;
  runs: RunService;
  sessions: SessionService;
  rateCounters: RateCounters;
  metrics: RunMetrics;
}

/**
 * Starts firing due schedules in this process: worker processes and the embedded one. Every firing
 * process polls the database every `AGENT_RUNS_SCHEDULE_POLL_MS`; a time is claimed in a transaction,
 * so any number of them fire it once.
 */
export function startScheduleFirer(resources: ScheduleFirerResources): ScheduleFirer {
  const { repos } = resources;
  const firer = new ScheduleFirer({
    schedules: repos.schedules,
    runStates: repos.runs,
    apiKeys: repos.apiKeys,
    workspaces: repos.workspaces,
    runs: resources.runs,
    sessions: resources.sessions,
    rateCounters: resources.rateCounters,
    metrics: resources.metrics,
    logger: resources.logger.child({ component: 'schedules' }),
    pollMs: resources.config.schedulePollMs,
  });
  firer.start();
  return firer;
}
