/** A run's terminal status, as the finished-runs counter labels it. */
export type FinishedRunStatus = 'succeeded' | 'failed' | 'cancelled';

/** How a tool call ended, as the tool-calls counter labels it. */
export type ToolCallOutcome = 'ok' | 'error' | 'timeout' | 'cancelled';

/** How a model call ended: `ok`, or the failure's `errorClass`. */
export type ModelCallOutcome = string;

/**
 * What the service counts for Prometheus (extensions §2). Each process counts its own; labels are
 * bounded: a workspace slug is the only tenant label, routes are templates, never raw paths.
 */
export interface RunMetrics {
  /** `workspaceId`: the adapter labels it with the workspace's slug, never the id. */
  runCreated(workspaceId: string): void;
  runFinished(workspaceId: string, status: FinishedRunStatus, durationSeconds: number): void;
  /** A run starts (+1) or stops (-1) executing in this process. */
  runExecuting(delta: 1 | -1): void;
  runQueueWait(seconds: number): void;
  modelCall(provider: string, model: string, outcome: ModelCallOutcome, durationSeconds: number): void;
  modelTimeToFirstToken(provider: string, seconds: number): void;
  tokens(
    provider: string,
    model: string,
    type: 'input' | 'output' | 'reasoning' | 'cache_read',
    count: number,
  ): void;
  toolCall(kind: string, outcome: ToolCallOutcome, durationSeconds: number): void;
  sseStream(delta: 1 | -1): void;
  rateLimited(bucket: string): void;
  httpRequest(method: string, route: string, status: number, durationSeconds: number): void;
  /** One webhook attempt: the delivery succeeded, failed for good, or will be retried. */
  webhookDelivery(outcome: WebhookAttemptOutcome): void;
  /** A schedule fire created its run. */
  scheduledRun(): void;
}

/** How a webhook attempt left its delivery, as the deliveries counter labels it. */
export type WebhookAttemptOutcome = 'succeeded' | 'failed' | 'retrying';

/** The metrics as the process counts them and as `/metrics` exposes them. */
export interface MetricsExposition extends RunMetrics {
  /** The exposition format's content type (`text/plain; version=0.0.4`). */
  readonly contentType: string;
  text(): Promise<string>;
}

/** Counts nothing: the default where no metrics are wired. */
export const noMetrics: RunMetrics = {
  runCreated: () => {},
  runFinished: () => {},
  runExecuting: () => {},
  runQueueWait: () => {},
  modelCall: () => {},
  modelTimeToFirstToken: () => {},
  tokens: () => {},
  toolCall: () => {},
  sseStream: () => {},
  rateLimited: () => {},
  httpRequest: () => {},
  webhookDelivery: () => {},
  scheduledRun: () => {},
};
