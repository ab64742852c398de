import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { ResourceLimits } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { listenerUrl, type Config } from './config.ts';
import { authServices } from './auth-services.ts';
import { buildApp } from './http/app.ts';
import { buildManagementApp } from './http/management-app.ts';
import type { AppResources } from './http/resources.ts';
import { builtinOfferings } from './providers/builtin-offerings.ts';
import { ModelCatalog } from './providers/model-catalog.ts';
import { resolveSecret } from './secret.ts';
import { migrateToLatest, openStorage, type OpenStorageOptions, type Storage } from './storage/database.ts';
import { createRepositories, type Repositories } from './storage/repositories/index.ts';
import { SecretBox } from './storage/secret-box.ts';
import { EventLogWriter } from './engine/log/event-log-writer.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './engine/loop/retry-policy.ts';
import { DEFAULT_EXECUTION_RETRY } from './engine/lifecycle/execution-retries.ts';
import { RunExecutor } from './engine/lifecycle/run-executor.ts';
import { LostRunSweeper } from './infra/lost-run-sweeper.ts';
import { meteredModelPort, meteredToolCatalog } from './infra/metered-ports.ts';
import { PrometheusMetrics } from './infra/prometheus-metrics.ts';
import { RunService } from './engine/lifecycle/run-service.ts';
import { SessionService } from './engine/lifecycle/session-service.ts';
import { HostedAgents } from './engine/lifecycle/hosted-agents.ts';
import { RunDispatcher } from './engine/lifecycle/run-dispatcher.ts';
import { controlPipelineFor } from './engine/controls/run-controls.ts';
import type { AdmittedRun, ModelPort, RunEventBus, RunQueue, RunSignals } from './engine/ports.ts';
import type { RedisChannels } from './infra/redis-channels.ts';
import { FlexibleRateCounters } from './infra/rate-limit-counters.ts';
import { RATE_LIMIT_WINDOW_SECONDS } from './domain/rate-limits.ts';
import { InProcessRunEventBus, InProcessRunSignals } from './infra/in-process-bus.ts';
import { InProcessRunQueue } from './infra/in-process-queue.ts';
import { JsonSchemaValidator } from './tools/json-schema-validator.ts';
import { RunToolCatalog } from './tools/run-tools.ts';
import { lazyGuardedFetch } from './tools/fetch-guard/lazy-guarded-fetch.ts';
import { createPluginRegistry, loadPluginModules } from './tools/plugins/plugin-registry.ts';
import { ModelThreadPool } from './providers/model-threads/model-thread-pool.ts';
import { supervisorJudges } from './providers/supervisor-judge/supervisor-judge.ts';
import { taskPlanner } from './providers/task-planner/task-planner.ts';

const DEFAULT_HEARTBEAT_MS = 15_000;
const DEFAULT_SHUTDOWN_GRACE_MS = 8_000;

export interface EngineOptions {
  heartbeatMs?: number;
  retryPolicy?: RetryPolicy;
  executionRetry?: RetryPolicy;
  shutdownGraceMs?: number;
  dispatchSweepMs?: number;
  /** How long a run waits for an unreachable database or Redis before it fails (5 minutes). */
  storeOutageLimitMs?: number;
}

export interface ServiceOptions {
  logger: Logger;
  /** Dev mode: the offline mock provider is the default model when no provider key is set. */
  dev: boolean;
  /** Build the admin routes even without AGENT_RUNS_ADMIN_TOKEN, under a random token (the in-process CLI). */
  internalAdmin?: boolean;
  storage?: OpenStorageOptions;
  engine?: EngineOptions;
  /** Start the model threads with the service rather than at the first model call (the CLI does). */
  startModelThreads?: boolean;
  /** Heap limits of each model thread (V8's defaults when absent). */
  modelThreadResourceLimits?: ResourceLimits;
  /** The model port workers call models through, instead of the one the configuration picks. */
  models?: ModelPort;
}

interface Transport {
  bus: RunEventBus;
  signals: RunSignals;
  queue: RunQueue;
  /** Present in scale-out mode (REDIS_URL). */
  redis: RedisChannels | undefined;
  /** Scale-out: queues again the unfinished runs that no job carries any more. */
  requeueLost: ((runs: readonly AdmittedRun[]) => Promise<string[]>) | undefined;
}

/** Embedded: an in-process queue and bus. Scale-out: BullMQ for runs, Redis pub/sub for events and signals. */
async function createTransport(config: Config): Promise<Transport> {
  if (!config.redisUrl) {
    return {
      bus: new InProcessRunEventBus(),
      signals: new InProcessRunSignals(),
      queue: new InProcessRunQueue({ concurrency: config.workerConcurrency }),
      redis: undefined,
      requeueLost: undefined,
    };
  }
  const { createScaleOutTransport } = await import('./infra/scale-out-transport.ts');
  const { bus, signals, queue, redis } = createScaleOutTransport({
    redisUrl: config.redisUrl,
    prefix: config.redisPrefix,
    concurrency: config.workerConcurrency,
    leaseMs: config.leaseMs,
  });
  return { bus, signals, queue, redis, requeueLost: (runs) => queue.requeueLost(runs) };
}

/**
 * The app's resources as the composition root built them: storage and its repositories as themselves
 * (the CLI and tests reach them), where the app sees them only through the engine's ports.
 */
export type ServiceResources = AppResources & {
  storage: Storage;
  repos: Repositories;
  secretBox: SecretBox;
};

export interface Service {
  app: FastifyInstance;
  resources: ServiceResources;
  queue: RunQueue;
  dispatcher: RunDispatcher;
  /**
   * With `AGENT_RUNS_METRICS_PORT`: opens the management listener (`/metrics`, `/healthz`, `/readyz`
   * without a credential) on `HOST` and answers its `http://HOST:PORT`; undefined without the port.
   * `close` closes it.
   */
  listenManagement(): Promise<string | undefined>;
  close(): Promise<void>;
}

/** Scale-out: how often a running run reads its stored cancel request (a lost signal's delay at most). */
const CANCEL_CHECK_MS = 2000;

/** How many admitted runs one sweep for lost jobs checks (the oldest first). */
const ADMITTED_RUNS_PER_SWEEP = 10_000;

/** How often workers wake parked runs past their deadline and admit waiting runs an end did not. */
const DEFAULT_DISPATCH_SWEEP_MS = 5000;

/** Below these lengths a secret is guessable; the service still starts, with a warning. */
const RECOMMENDED_SECRET_LENGTH = 32;
const RECOMMENDED_ADMIN_TOKEN_LENGTH = 16;

/** The composition root: the only place that constructs adapters and wires them together. */
export async function createService(config: Config, options: ServiceOptions): Promise<Service> {
  const { secret, generatedAt } = resolveSecret(config);
  if (generatedAt && !options.dev) {
    options.logger.warn(
      { path: generatedAt },
      'AGENT_RUNS_SECRET is not set: using a generated secret kept beside the database',
    );
  }
  if (config.secret !== undefined && config.secret.length < RECOMMENDED_SECRET_LENGTH) {
    options.logger.warn(`AGENT_RUNS_SECRET is shorter than ${RECOMMENDED_SECRET_LENGTH} characters`);
  }
  if (config.adminToken !== undefined && config.adminToken.length < RECOMMENDED_ADMIN_TOKEN_LENGTH) {
    options.logger.warn(
      `AGENT_RUNS_ADMIN_TOKEN is shorter than ${RECOMMENDED_ADMIN_TOKEN_LENGTH} characters`,
    );
  }
  // Provider warnings (unsupported settings, compatibility modes) go to our log, not to stderr.
  globalThis.AI_SDK_LOG_WARNINGS = ({ warnings, provider, model }) =>
    options.logger.debug({ provider, model, warnings }, 'model provider warnings');
  const storage = openStorage(config.storage, {
    ...options.storage,
    onIdleConnectionError: (error) =>
      options.logger.warn({ err: error }, 'an idle database connection failed; it was dropped from the pool'),
  });
  let models: ModelPort | undefined;
  try {
    const applied = await migrateToLatest(storage);
    if (applied.length > 0) options.logger.info({ migrations: applied }, 'applied database migrations');
    const repos = createRepositories(storage.db);
    const secretBox = new SecretBox(secret);
    const catalog = new ModelCatalog({
      offerings: repos.offerings,
      workspaceProviders: repos.workspaceProviders,
      builtin: builtinOfferings(config, { devMock: options.dev }),
      secretBox,
    });
    const adminToken =
      config.adminToken ?? (options.internalAdmin ? randomBytes(24).toString('base64url') : undefined);

    const metrics = new PrometheusMetrics({
      workspaceSlugs: () => repos.workspaces.list(),
      onError: (error) =>
        options.logger.warn({ err: error }, 'a run was not counted: reading workspaces failed'),
    });
    const unmeteredTools = new RunToolCatalog({
      workspaceTools: repos.workspaceTools,
      plugins: createPluginRegistry(await loadPluginModules(config.plugins, process.cwd())),
      pluginRecords: repos.pluginRecords,
      fetch: lazyGuardedFetch({ allow: config.fetchAllow }),
    });
    // Loaded only when an OTLP endpoint is set: without it no OpenTelemetry SDK module is imported.
    const tracing = config.tracing.enabled
      ? (await import('./infra/tracing/open-telemetry.ts')).startOpenTelemetry({
          serviceName: config.tracing.serviceName,
          captureMessageContent: config.tracing.captureMessageContent,
          workspaceSlugs: () => repos.workspaces.list(),
          agentName: async (workspaceId, agentId) =>
            (await repos.agents.findById(workspaceId, agentId))?.name,
          logger: options.logger,
        })
      : undefined;
    // Server-resolved tool calls are counted by kind, outcome and duration around their handlers,
    // and traced (a span each) where tracing is on.
    const meteredTools = meteredToolCatalog(unmeteredTools, metrics);
    const toolCatalog = tracing ? tracing.tools(meteredTools) : meteredTools;

    const shutdown = new AbortController();
    const stopping = new AbortController();
    const { bus, signals, queue, redis, requeueLost } = await createTransport(config);
    let sweeper: LostRunSweeper | undefined;
    const writer = new EventLogWriter(repos.runEvents, bus);
    const dispatcher = new RunDispatcher({ dispatch: repos.dispatch, queue, logger: options.logger });
    const runService = new RunService({
      runs: repos.runs,
      toolCalls: repos.toolCalls,
      agents: repos.agents,
      resolver: catalog,
      toolCatalog,
      dispatcher,
      signals,
      logger: options.logger,
      metrics,
      ...(tracing && { tracing: tracing.runs }),
    });
    if (config.role !== 'api' && !options.internalAdmin) {
      if (options.models) {
        models = options.models;
      } else if (config.modelThreads > 0) {
        const pool = new ModelThreadPool({
          threads: config.modelThreads,
          logger: options.logger,
          ...(options.modelThreadResourceLimits && { resourceLimits: options.modelThreadResourceLimits }),
        });
        if (options.startModelThreads) pool.start();
        models = pool;
      } else {
        // Imported here: with model threads the provider packages load on the threads only.
        models = (await import('./providers/model-port.ts')).inThreadModelPort;
      }
      // Every model call (the loop's, the judge's, the planner's) is counted around the port.
      models = meteredModelPort(models, metrics);
      // A `chat` span around each, carrying its `traceparent` to the provider.
      if (tracing) models = tracing.models(models);
      // The supervisor's judge and a plan-only run's planner call models as the loop does, through the same port.
      const judges = supervisorJudges({ models, resolver: catalog });
      const planner = taskPlanner(models);
      const executor = new RunExecutor({
        shutdown: shutdown.signal,
        fenceWrites: redis !== undefined,
        runs: repos.runs,
        dispatcher,
        controlsFor: (run, signal, logger) =>
          controlPipelineFor(run.spec, {
            runId: run.id,
            workspaceId: run.workspaceId,
            signal,
            logger,
            judges,
            planner,
          }),
        events: repos.runEvents,
        writer,
        signals,
        resolver: catalog,
        toolCatalog,
        models,
        toolCalls: repos.toolCalls,
        serverCalls: repos.serverCalls,
        files: repos.files,
        checkpoints: repos.checkpoints,
        sessionHistory: repos.sessions,
        validator: new JsonSchemaValidator(),
        retryPolicy: options.engine?.retryPolicy ?? DEFAULT_RETRY_POLICY,
        executionRetry: options.engine?.executionRetry ?? DEFAULT_EXECUTION_RETRY,
        ...(options.engine?.storeOutageLimitMs !== undefined && {
          storeOutageLimitMs: options.engine.storeOutageLimitMs,
        }),
        cancelCheckMs: redis ? CANCEL_CHECK_MS : undefined,
        logger: options.logger,
        metrics,
        ...(tracing && { tracing: tracing.runs }),
      });
      queue.consume((job) => executor.execute(job));
      if (requeueLost) {
        const lostRuns = new LostRunSweeper({
          listAdmitted: () => repos.dispatch.admitted(ADMITTED_RUNS_PER_SWEEP),
          requeueLost,
          intervalMs: 2 * config.leaseMs,
          logger: options.logger,
        });
        // Runs accepted while Redis was away, and jobs a restarted Redis forgot, go on at once.
        redis?.onReconnect(() => lostRuns.sweepSoon());
        sweeper = lostRuns;
      } else {
        // The embedded queue lives in memory: the runs a stop left on a worker are picked up again.
        for (const job of await repos.dispatch.admitted(ADMITTED_RUNS_PER_SWEEP)) await queue.enqueue(job);
      }
      dispatcher.start(options.engine?.dispatchSweepMs ?? DEFAULT_DISPATCH_SWEEP_MS);
    }

    const sessionService = new SessionService({
      sessions: repos.sessions,
      agents: repos.agents,
      resolver: catalog,
      toolCatalog,
      runs: runService,
    });
    const heartbeatMs = options.engine?.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    const rateCounters = new FlexibleRateCounters(
      redis ? { kind: 'redis', client: redis.client, prefix: config.redisPrefix } : { kind: 'memory' },
      RATE_LIMIT_WINDOW_SECONDS,
    );
    const resources: ServiceResources = {
      config,
      storage,
      repos,
      catalog,
      ...authServices(repos, rateCounters),
      secretBox,
      serviceSecret: secret,
      adminToken,
      rateCounters,
      ...(redis && { redis }),
      stopping: stopping.signal,
      metrics,
      engine: {
        runs: runService,
        sessions: sessionService,
        hostedAgents: new HostedAgents({
          agents: repos.agents,
          contexts: repos.a2aContexts,
          sessions: sessionService,
          store: repos.runEvents,
          bus,
          heartbeatMs,
        }),
        events: repos.runEvents,
        bus,
        heartbeatMs,
      },
    };
    const app = await buildApp(resources, {
      logger: options.logger,
      ...(tracing && { requestTracing: tracing.requests }),
    });
    let management: FastifyInstance | undefined;
    const listenManagement = async (): Promise<string | undefined> => {
      if (config.metricsPort === undefined) return undefined;
      management ??= await buildManagementApp(resources, { logger: options.logger });
      await management.listen({ port: config.metricsPort, host: config.host });
      const { port } = management.server.address() as AddressInfo;
      return listenerUrl(config.host, port);
    };
    const close = async (): Promise<void> => {
      // Readiness answers `503 stopping` from now on and streams end (their clients resume on
      // another replica). The app keeps serving while runs in progress get a grace period, after
      // which they are stopped where they are (another worker, or a restart, picks them up); then
      // the app closes, the log is flushed and storage closed.
      stopping.abort();
      const grace = setTimeout(
        () => shutdown.abort(),
        options.engine?.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
      );
      await sweeper?.close();
      await dispatcher.close();
      await queue.close();
      clearTimeout(grace);
      await app.close();
      await management?.close();
      await models?.close();
      await writer.durable();
      await redis?.close();
      await storage.close();
      // The spans of the runs and requests that ended are exported before the process exits.
      await tracing
        ?.flush()
        .catch((error: unknown) => options.logger.warn({ err: error }, 'exporting the last spans failed'));
    };
    let closing: Promise<void> | undefined;
    return {
      app,
      resources,
      queue,
      dispatcher,
      listenManagement,
      // A second close (a signal after a programmatic stop) waits for the first.
      close: () => (closing ??= close()),
    };
  } catch (error) {
    await models?.close();
    await storage.close();
    throw error;
  }
}
