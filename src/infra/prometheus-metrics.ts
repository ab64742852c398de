import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type {
  FinishedRunStatus,
  MetricsExposition,
  ToolCallOutcome,
  WebhookAttemptOutcome,
} from '../engine/ports.ts';

/** The exposition format's content type (`text/plain; version=0.0.4`). */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/**
 * The service's Prometheus metrics (extensions §2) in one registry per service, with the standard
 * process and Node.js metrics. Every metric exists from the start, at 0 until something counts it.
 */
export class PrometheusMetrics implements MetricsExposition {
  readonly registry = new Registry();
  readonly contentType: string = METRICS_CONTENT_TYPE;
  private readonly runsCreated = new Counter({
    name: 'agent_runs_runs_created_total',
    help: 'Runs created, by workspace.',
    labelNames: ['workspace'],
    registers: [this.registry],
  });
  private readonly runsFinished = new Counter({
    name: 'agent_runs_runs_finished_total',
    help: 'Runs that reached a terminal event, by workspace and status.',
    labelNames: ['workspace', 'status'],
    registers: [this.registry],
  });
  private readonly executing = new Gauge({
    name: 'agent_runs_runs_executing',
    help: 'Runs this process executes now.',
    registers: [this.registry],
  });
  private readonly queueWait = new Histogram({
    name: 'agent_runs_run_queue_wait_seconds',
    help: 'Time from a run’s creation to its first execution.',
    buckets: SECONDS_BUCKETS,
    registers: [this.registry],
  });
  private readonly runDuration = new Histogram({
    name: 'agent_runs_run_duration_seconds',
    help: 'Time from a run’s creation to its terminal event, by status.',
    labelNames: ['status'],
    buckets: SECONDS_BUCKETS,
    registers: [this.registry],
  });
  private readonly modelCalls = new Counter({
    name: 'agent_runs_model_calls_total',
    help: 'Model calls, by provider, model and outcome (ok or the error class).',
    labelNames: ['provider', 'model', 'outcome'],
    registers: [this.registry],
  });
  private readonly ttft = new Histogram({
    name: 'agent_runs_model_time_to_first_token_seconds',
    help: 'Time from a model call’s start to its first text or thought delta, by provider.',
    labelNames: ['provider'],
    buckets: SECONDS_BUCKETS,
    registers: [this.registry],
  });
  private readonly modelDuration = new Histogram({
    name: 'agent_runs_model_call_duration_seconds',
    help: 'Model call duration, by provider.',
    labelNames: ['provider'],
    buckets: SECONDS_BUCKETS,
    registers: [this.registry],
  });
  private readonly tokenCount = new Counter({
    name: 'agent_runs_tokens_total',
    help: 'Tokens reported by providers, by provider, model and type.',
    labelNames: ['provider', 'model', 'type'],
    registers: [this.registry],
  });
  private readonly toolCalls = new Counter({
    name: 'agent_runs_tool_calls_total',
    help: 'Tool calls (server-executed, and client-resolved from local_tool_call to result), by tool ref kind and outcome.',
    labelNames: ['kind', 'outcome'],
    registers: [this.registry],
  });
  private readonly toolDuration = new Histogram({
    name: 'agent_runs_tool_call_duration_seconds',
    help: 'Tool call duration (a client-resolved call: from local_tool_call to its result), by tool ref kind.',
    labelNames: ['kind'],
    buckets: SECONDS_BUCKETS,
    registers: [this.registry],
  });
  private readonly sseOpen = new Gauge({
    name: 'agent_runs_sse_streams_open',
    help: 'SSE streams open on this process (run streams and hosted A2A streams).',
    registers: [this.registry],
  });
  private readonly scheduledRuns = new Counter({
    name: 'agent_runs_scheduled_runs_total',
    help: 'Runs created by schedules.',
    registers: [this.registry],
  });
  private readonly rateLimitedCount = new Counter({
    name: 'agent_runs_rate_limited_total',
    help: 'Requests refused with 429, by rate-limit bucket.',
    labelNames: ['bucket'],
    registers: [this.registry],
  });
  private readonly httpRequests = new Counter({
    name: 'agent_runs_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: 'agent_runs_http_request_duration_seconds',
    help: 'HTTP request duration, by method and route template.',
    labelNames: ['method', 'route'],
    buckets: SECONDS_BUCKETS,
    registers: [this.registry],
  });

  private readonly webhookDeliveries = new Counter({
    name: 'agent_runs_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by how they left the delivery: succeeded, failed for good, or retrying.',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  readonly #slugs = new Map<string, string>();
  readonly #workspaceSlugs: () => Promise<ReadonlyArray<{ id: string; slug: string }>>;
  readonly #onError: (error: unknown) => void;

  /**
   * `workspaceSlugs` lists the workspaces (read again when an id is not known yet): a workspace is
   * labelled by its slug. `onError` hears a failed lookup (the count is dropped, never the caller's work).
   */
  constructor(options: {
    workspaceSlugs: () => Promise<ReadonlyArray<{ id: string; slug: string }>>;
    onError: (error: unknown) => void;
  }) {
    this.#workspaceSlugs = options.workspaceSlugs;
    this.#onError = options.onError;
    collectDefaultMetrics({ register: this.registry });
  }

  runCreated(workspaceId: string): void {
    this.#withSlug(workspaceId, (workspace) => this.runsCreated.inc({ workspace }));
  }
  runFinished(workspaceId: string, status: FinishedRunStatus, durationSeconds: number): void {
    this.runDuration.observe({ status }, durationSeconds);
    this.#withSlug(workspaceId, (workspace) => this.runsFinished.inc({ workspace, status }));
  }

  #withSlug(workspaceId: string, count: (slug: string) => void): void {
    const known = this.#slugs.get(workspaceId);
    if (known !== undefined) return count(known);
    this.#workspaceSlugs().then(
      (workspaces) => {
        for (const { id, slug } of workspaces) this.#slugs.set(id, slug);
        const slug = this.#slugs.get(workspaceId);
        if (slug !== undefined) count(slug);
      },
      (error: unknown) => this.#onError(error),
    );
  }
  runExecuting(delta: 1 | -1): void {
    this.executing.inc(delta);
  }
  runQueueWait(seconds: number): void {
    this.queueWait.observe(seconds);
  }
  modelCall(provider: string, model: string, outcome: string, durationSeconds: number): void {
    this.modelCalls.inc({ provider, model, outcome });
    this.modelDuration.observe({ provider }, durationSeconds);
  }
  modelTimeToFirstToken(provider: string, seconds: number): void {
    this.ttft.observe({ provider }, seconds);
  }
  tokens(
    provider: string,
    model: string,
    type: 'input' | 'output' | 'reasoning' | 'cache_read',
    count: number,
  ): void {
    if (count > 0) this.tokenCount.inc({ provider, model, type }, count);
  }
  toolCall(kind: string, outcome: ToolCallOutcome, durationSeconds: number): void {
    this.toolCalls.inc({ kind, outcome });
    this.toolDuration.observe({ kind }, durationSeconds);
  }
  sseStream(delta: 1 | -1): void {
    this.sseOpen.inc(delta);
  }
  webhookDelivery(outcome: WebhookAttemptOutcome): void {
    this.webhookDeliveries.inc({ outcome });
  }

  scheduledRun(): void {
    this.scheduledRuns.inc();
  }
  rateLimited(bucket: string): void {
    this.rateLimitedCount.inc({ bucket });
  }
  httpRequest(method: string, route: string, status: number, durationSeconds: number): void {
    this.httpRequests.inc({ method, route, status: String(status) });
    this.httpDuration.observe({ method, route }, durationSeconds);
  }

  /** The exposition text of every metric. */
  async text(): Promise<string> {
    return this.registry.metrics();
  }
}
