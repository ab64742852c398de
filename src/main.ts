import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { ResourceLimits } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { listenerUrl, type Config } from './config.ts';
import { authServices } from './auth-services.ts';
import { telemetryServices } from './telemetry-services.ts';
import { createTransport } from './transport.ts';
import { startWorker, workerModelPort, type EngineOptions } from './worker-services.ts';
import { startWebhookDeliveries, webhookWakes } from './webhook-services.ts';
import { startScheduleFirer } from './schedule-services.ts';
import { ScheduleService } from './engine/schedules/schedule-service.ts';
import { wakingEventStore } from './engine/webhooks/waking-event-store.ts';
import { buildApp } from './http/app.ts';
import { buildManagementApp } from './http/management-app.ts';
import type { AppResources } from './http/resources.ts';
import { builtinOfferings } from './providers/builtin-offerings.ts';
import { ModelCatalog } from './providers/model-catalog.ts';
import { resolveSecret, warnAboutSecrets } from './secret.ts';
import { migrateToLatest, openStorage, type OpenStorageOptions, type Storage } from './storage/database.ts';
import { createRepositories, type Repositories } from './storage/repositories/index.ts';
import { SecretBox } from './storage/secret-box.ts';
import { EventLogWriter } from './engine/log/event-log-writer.ts';
import type { LostRunSweeper } from './infra/lost-run-sweeper.ts';
import { RunService } from './engine/lifecycle/run-service.ts';
import { SessionService } from './engine/lifecycle/session-service.ts';
import { AgentThreads } from './engine/lifecycle/agent-threads.ts';
import { HostedAgents } from './engine/lifecycle/hosted-agents.ts';
import { startIdempotencyKeyPurge } from './engine/lifecycle/idempotency-key-purge.ts';
import { RunDispatcher } from './engine/lifecycle/run-dispatcher.ts';
import type { ModelPort, RunQueue } from './engine/ports.ts';
import { FlexibleRateCounters } from './infra/rate-limit-counters.ts';
import { RATE_LIMIT_WINDOW_SECONDS } from './domain/rate-limits.ts';
import { RunToolCatalog } from './tools/run-tools.ts';
import { lazyGuardedFetch } from './tools/fetch-guard/lazy-guarded-fetch.ts';
import { createPluginRegistry, loadPluginModules } from './tools/plugins/plugin-registry.ts';

const DEFAULT_HEARTBEAT_MS = 15_000;
const DEFAULT_SHUTDOWN_GRACE_MS = 8_000;

export type { EngineOptions };

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

/** The composition root: the only place that constructs adapters and wires them together. */
export async function createService(config: Config, options: ServiceOptions): Promise<Service> {
  const { secret, generatedAt } = resolveSecret(config);
  warnAboutSecrets(config, { generatedAt, dev: options.dev }, options.logger);
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

    const unobservedTools = new RunToolCatalog({
      workspaceTools: repos.workspaceTools,
      plugins: createPluginRegistry(await loadPluginModules(config.plugins, process.cwd())),
      pluginRecords: repos.pluginRecords,
      fetch: lazyGuardedFetch({ allow: config.fetchAllow }),
    });
    const telemetry = await telemetryServices(config.tracing, repos, options.logger);
    const { metrics } = telemetry;
    // Server-resolved tool calls are counted by kind, outcome and duration around their handlers,
    // and traced (a span each) where tracing is on.
    const toolCatalog = telemetry.tools(unobservedTools);

    const shutdown = new AbortController();
    const stopping = new AbortController();
    const transport = await createTransport(config);
    const { bus, signals, queue, redis } = transport;
    let sweeper: LostRunSweeper | undefined;
    let webhooks: ReturnType<typeof startWebhookDeliveries> | undefined;
    const wakes = webhookWakes(redis, config.redisPrefix);
    // Deliveries commit with the terminal events that announce them: a deliverer sends them now
    // (this process's own, or, from an API replica, the workers' through the wake channel).
    const wakeDeliverers = () => (webhooks ? webhooks.deliverer.wake() : wakes.announce());
    const writer = new EventLogWriter(wakingEventStore(repos.runEvents, wakeDeliverers), bus);
    repos.toolCalls.onWaiting(wakeDeliverers);
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
      ...(telemetry.runTracing && { tracing: telemetry.runTracing }),
    });
    if (config.role !== 'api' && !options.internalAdmin) {
      // Every model call (the loop's, the judge's, the planner's) is counted, and traced where tracing is on.
      models = telemetry.models(await workerModelPort(config, options));
      sweeper = await startWorker({
        config,
        engine: options.engine,
        logger: options.logger,
        repos,
        catalog,
        toolCatalog,
        models,
        metrics,
        tracing: telemetry.runTracing,
        transport,
        dispatcher,
        writer,
        shutdown: shutdown.signal,
      });
      webhooks = startWebhookDeliveries({ config, logger: options.logger, repos, secretBox, metrics, wakes });
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
    const scheduleService = new ScheduleService({
      schedules: repos.schedules,
      agents: repos.agents,
      sessions: repos.sessions,
      resolver: catalog,
      toolCatalog,
    });
    // Workers fire schedules (the embedded process is one): see docs/schedules.md.
    const scheduleFirer =
      config.role !== 'api' && !options.internalAdmin
        ? startScheduleFirer({
            config,
            logger: options.logger,
            repos,
            runs: runService,
            sessions: sessionService,
            rateCounters,
            metrics,
          })
        : undefined;
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
        schedules: scheduleService,
        hostedAgents: new HostedAgents({
          agents: repos.agents,
          contexts: repos.a2aContexts,
          sessions: sessionService,
          store: repos.runEvents,
          bus,
          heartbeatMs,
        }),
        agentThreads: new AgentThreads({
          agents: repos.agents,
          contexts: repos.a2aContexts,
          sessions: sessionService,
          runs: runService,
          store: repos.runEvents,
          bus,
          heartbeatMs,
        }),
        events: repos.runEvents,
        bus,
        heartbeatMs,
        wakeWebhooks: wakeDeliverers,
      },
    };
    const app = await buildApp(resources, {
      logger: options.logger,
      ...(telemetry.requestTracing && { requestTracing: telemetry.requestTracing }),
    });
    const idempotencyPurge =
      config.role === 'worker' ? undefined : startIdempotencyKeyPurge(repos.idempotencyKeys, options.logger);
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
      idempotencyPurge?.stop();
      const grace = setTimeout(
        () => shutdown.abort(),
        options.engine?.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
      );
      await scheduleFirer?.close();
      await sweeper?.close();
      await webhooks?.stop();
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
      await telemetry.flush();
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
