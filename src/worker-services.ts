import type { ResourceLimits } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { controlPipelineFor } from './engine/controls/run-controls.ts';
import { DEFAULT_EXECUTION_RETRY } from './engine/lifecycle/execution-retries.ts';
import type { RunDispatcher } from './engine/lifecycle/run-dispatcher.ts';
import { RunExecutor } from './engine/lifecycle/run-executor.ts';
import type { EventLogWriter } from './engine/log/event-log-writer.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './engine/loop/retry-policy.ts';
import type { ModelPort, ModelResolver, RunMetrics, ToolCatalog } from './engine/ports.ts';
import type { RunTracing } from './engine/ports/tracing.ts';
import { LostRunSweeper } from './infra/lost-run-sweeper.ts';
import { ModelThreadPool } from './providers/model-threads/model-thread-pool.ts';
import { supervisorJudges } from './providers/supervisor-judge/supervisor-judge.ts';
import { taskPlanner } from './providers/task-planner/task-planner.ts';
import type { Repositories } from './storage/repositories/index.ts';
import { JsonSchemaValidator } from './tools/json-schema-validator.ts';
import type { Transport } from './transport.ts';

export interface EngineOptions {
  heartbeatMs?: number;
  retryPolicy?: RetryPolicy;
  executionRetry?: RetryPolicy;
  shutdownGraceMs?: number;
  dispatchSweepMs?: number;
  /** How long a run waits for an unreachable database or Redis before it fails (5 minutes). */
  storeOutageLimitMs?: number;
}

/** Scale-out: how often a running run reads its stored cancel request (a lost signal's delay at most). */
const CANCEL_CHECK_MS = 2000;

/** How many admitted runs one sweep for lost jobs checks (the oldest first). */
const ADMITTED_RUNS_PER_SWEEP = 10_000;

/** How often workers wake parked runs past their deadline and admit waiting runs an end did not. */
const DEFAULT_DISPATCH_SWEEP_MS = 5000;

export interface ModelPortOptions {
  logger: Logger;
  /** The model port to use instead of the one the configuration picks. */
  models?: ModelPort;
  /** Start the model threads now rather than at the first model call. */
  startModelThreads?: boolean;
  /** Heap limits of each model thread (V8's defaults when absent). */
  modelThreadResourceLimits?: ResourceLimits;
}

/** The model port a worker calls models through: the given one, the model threads, or the event loop. */
export async function workerModelPort(config: Config, options: ModelPortOptions): Promise<ModelPort> {
  if (options.models) return options.models;
  if (config.modelThreads > 0) {
    const pool = new ModelThreadPool({
      threads: config.modelThreads,
      logger: options.logger,
      ...(options.modelThreadResourceLimits && { resourceLimits: options.modelThreadResourceLimits }),
    });
    if (options.startModelThreads) pool.start();
    return pool;
  }
  // Imported here: with model threads the provider packages load on the threads only.
  return (await import('./providers/model-port.ts')).inThreadModelPort;
}

/** What a worker executes runs with, as the composition root built it. */
export interface WorkerResources {
  config: Config;
  engine: EngineOptions | undefined;
  logger: Logger;
  repos: Repositories;
  catalog: ModelResolver;
  toolCatalog: ToolCatalog;
  /** Counted and traced already. */
  models: ModelPort;
  metrics: RunMetrics;
  tracing: RunTracing | undefined;
  transport: Transport;
  dispatcher: RunDispatcher;
  writer: EventLogWriter;
  /** Aborted when the process stops: runs in progress are handed over. */
  shutdown: AbortSignal;
}

/**
 * Starts executing runs in this process: the queue's jobs go to a run executor, lost jobs are
 * queued again (scale-out) or the runs a stop left are picked up (embedded), and the dispatcher
 * sweeps. Answers the sweeper of lost jobs, to close with the service (scale-out only).
 */
export async function startWorker(resources: WorkerResources): Promise<LostRunSweeper | undefined> {
  const { config, engine, logger, repos, catalog, models, transport, dispatcher } = resources;
  const { queue, redis, requeueLost } = transport;
  // The supervisor's judge and a plan-only run's planner call models as the loop does, through the same port.
  const judges = supervisorJudges({ models, resolver: catalog });
  const planner = taskPlanner(models);
  const executor = new RunExecutor({
    shutdown: resources.shutdown,
    fenceWrites: redis !== undefined,
    runs: repos.runs,
    dispatcher,
    controlsFor: (run, signal, runLogger) =>
      controlPipelineFor(run.spec, {
        runId: run.id,
        workspaceId: run.workspaceId,
        signal,
        logger: runLogger,
        judges,
        planner,
      }),
    events: repos.runEvents,
    writer: resources.writer,
    signals: transport.signals,
    resolver: catalog,
    toolCatalog: resources.toolCatalog,
    models,
    toolCalls: repos.toolCalls,
    serverCalls: repos.serverCalls,
    files: repos.files,
    checkpoints: repos.checkpoints,
    sessionHistory: repos.sessions,
    validator: new JsonSchemaValidator(),
    retryPolicy: engine?.retryPolicy ?? DEFAULT_RETRY_POLICY,
    executionRetry: engine?.executionRetry ?? DEFAULT_EXECUTION_RETRY,
    ...(engine?.storeOutageLimitMs !== undefined && { storeOutageLimitMs: engine.storeOutageLimitMs }),
    cancelCheckMs: redis ? CANCEL_CHECK_MS : undefined,
    logger,
    metrics: resources.metrics,
    ...(resources.tracing && { tracing: resources.tracing }),
  });
  queue.consume((job) => executor.execute(job));
  let sweeper: LostRunSweeper | undefined;
  if (requeueLost) {
    const lostRuns = new LostRunSweeper({
      listAdmitted: () => repos.dispatch.admitted(ADMITTED_RUNS_PER_SWEEP),
      requeueLost,
      intervalMs: 2 * config.leaseMs,
      logger,
    });
    // Runs accepted while Redis was away, and jobs a restarted Redis forgot, go on at once.
    redis?.onReconnect(() => lostRuns.sweepSoon());
    sweeper = lostRuns;
  } else {
    // The embedded queue lives in memory: the runs a stop left on a worker are picked up again.
    for (const job of await repos.dispatch.admitted(ADMITTED_RUNS_PER_SWEEP)) await queue.enqueue(job);
  }
  dispatcher.start(engine?.dispatchSweepMs ?? DEFAULT_DISPATCH_SWEEP_MS);
  return sweeper;
}
