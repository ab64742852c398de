import { ProxyTracerProvider, trace } from '@opentelemetry/api';
import { UndiciInstrumentation, type UndiciRequest } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import type { ModelPort, ToolCatalog } from '../../engine/ports.ts';
import type { RequestTracing, RunTracing } from '../../engine/ports/tracing.ts';
import { httpServerSpans } from './http-server-spans.ts';
import { PresetSpanIds } from './preset-span-ids.ts';
import { RunSpans } from './run-spans.ts';
import { tracedModelPort, tracedToolCatalog } from './traced-ports.ts';

export interface OpenTelemetryOptions {
  /** `service.name`: `OTEL_SERVICE_NAME`, else `agent-runs`. */
  serviceName: string;
  captureMessageContent: boolean;
  workspaceSlugs(): Promise<ReadonlyArray<{ id: string; slug: string }>>;
  agentName(workspaceId: string, agentId: string): Promise<string | undefined>;
  logger: Logger;
}

/** Tracing as the composition root wires it: the engine's port, the HTTP spans and the port wrappers. */
export interface OpenTelemetryTracing {
  runs: RunTracing;
  requests: RequestTracing;
  models(port: ModelPort): ModelPort;
  tools(catalog: ToolCatalog): ToolCatalog;
  /** Exports the spans still batched. */
  flush(): Promise<void>;
}

const TRACER_NAME = 'agent-runs';

/** One SDK per process: its context manager, propagator and tracer provider are process-wide. */
let started: { sdk: NodeSDK; ids: PresetSpanIds } | undefined;

/**
 * Starts the OpenTelemetry SDK (once per process) with traces only: the exporter, its protocol,
 * headers, sampler and batching come from the standard `OTEL_*` variables, which the SDK reads.
 * Requests sent with fetch (global or undici's, the SSRF-guarded fetch of the tools included) get
 * CLIENT spans and `traceparent` inside a traced context; a request that already carries one (a
 * provider request, given its `chat` span's) is left as it is.
 */
export function startOpenTelemetry(options: OpenTelemetryOptions): OpenTelemetryTracing {
  if (!started) {
    const ids = new PresetSpanIds();
    const sdk = new NodeSDK({
      serviceName: options.serviceName,
      idGenerator: ids,
      // Traces only: no metric or log exporter (metrics are Prometheus', logs pino's).
      metricReaders: [],
      logRecordProcessors: [],
      instrumentations: [
        new UndiciInstrumentation({
          requireParentforSpans: true,
          ignoreRequestHook: carriesTraceparent,
        }),
      ],
    });
    sdk.start();
    started = { sdk, ids };
  }
  const { ids } = started;
  const tracer = trace.getTracer(TRACER_NAME);
  const { captureMessageContent } = options;
  return {
    runs: new RunSpans({
      tracer,
      ids,
      captureMessageContent,
      workspaceSlugs: options.workspaceSlugs,
      agentName: options.agentName,
      logger: options.logger,
    }),
    requests: httpServerSpans(tracer),
    models: (port) => tracedModelPort(port, { tracer, captureMessageContent }),
    tools: (catalog) => tracedToolCatalog(catalog, { tracer, captureMessageContent }),
    flush: async () => {
      const global = trace.getTracerProvider();
      const provider = global instanceof ProxyTracerProvider ? global.getDelegate() : global;
      if (provider instanceof TracerProvider) await provider.forceFlush();
    },
  };
}

function carriesTraceparent(request: UndiciRequest): boolean {
  const { headers } = request;
  if (typeof headers === 'string') return /^traceparent:/im.test(headers);
  for (let index = 0; index < headers.length; index += 2) {
    const name = headers[index];
    if (typeof name === 'string' && name.toLowerCase() === 'traceparent') return true;
  }
  return false;
}
