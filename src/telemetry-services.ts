import type { Logger } from 'pino';
import type { TracingConfig } from './config.ts';
import type { ModelPort, ToolCatalog } from './engine/ports.ts';
import type { RequestTracing, RunTracing } from './engine/ports/tracing.ts';
import { meteredModelPort, meteredToolCatalog } from './infra/metered-ports.ts';
import { PrometheusMetrics } from './infra/prometheus-metrics.ts';
import type { OpenTelemetryTracing } from './infra/tracing/open-telemetry.ts';
import type { Repositories } from './storage/repositories/index.ts';

/**
 * The service's telemetry as the composition root wires it: the Prometheus metrics always, the
 * OpenTelemetry traces where an OTLP endpoint is configured, and the ports observed by both.
 */
export interface Telemetry {
  metrics: PrometheusMetrics;
  /** The engine's tracing port: undefined where tracing is off. */
  runTracing: RunTracing | undefined;
  /** The HTTP server spans: undefined where tracing is off. */
  requestTracing: RequestTracing | undefined;
  /**
   * The model port with every call (the loop's, the judge's, the planner's) counted, and where
   * tracing is on a `chat` span around each, carrying its `traceparent` to the provider.
   */
  models(port: ModelPort): ModelPort;
  /** The tool catalog with every server-resolved call counted, and traced where tracing is on. */
  tools(catalog: ToolCatalog): ToolCatalog;
  /** Exports the spans of the runs and requests that ended (a failure is logged, not thrown). */
  flush(): Promise<void>;
}

/** The composition root's wiring of the metrics and traces adapters (infra/) onto storage. */
export async function telemetryServices(
  config: TracingConfig,
  repos: Repositories,
  logger: Logger,
): Promise<Telemetry> {
  const metrics = new PrometheusMetrics({
    workspaceSlugs: () => repos.workspaces.list(),
    onError: (error) => logger.warn({ err: error }, 'a run was not counted: reading workspaces failed'),
  });
  const tracing = await openTelemetryWhenConfigured(config, repos, logger);
  return {
    metrics,
    runTracing: tracing?.runs,
    requestTracing: tracing?.requests,
    models: (port) => {
      const metered = meteredModelPort(port, metrics);
      return tracing ? tracing.models(metered) : metered;
    },
    tools: (catalog) => {
      const metered = meteredToolCatalog(catalog, metrics);
      return tracing ? tracing.tools(metered) : metered;
    },
    flush: async () => {
      await tracing
        ?.flush()
        .catch((error: unknown) => logger.warn({ err: error }, 'exporting the last spans failed'));
    },
  };
}

/** Loaded only when an OTLP endpoint is set: without it no OpenTelemetry SDK module is imported. */
async function openTelemetryWhenConfigured(
  config: TracingConfig,
  repos: Repositories,
  logger: Logger,
): Promise<OpenTelemetryTracing | undefined> {
  if (!config.enabled) return undefined;
  const { startOpenTelemetry } = await import('./infra/tracing/open-telemetry.ts');
  return startOpenTelemetry({
    serviceName: config.serviceName,
    captureMessageContent: config.captureMessageContent,
    workspaceSlugs: () => repos.workspaces.list(),
    agentName: async (workspaceId, agentId) => (await repos.agents.findById(workspaceId, agentId))?.name,
    logger,
  });
}
