import type { ServerResponse } from 'node:http';
import type { RunMetrics } from '../../engine/ports.ts';

/**
 * Counts an SSE response in `agent_runs_sse_streams_open` from now until it closes: +1 once, -1 once
 * when its end is sent or its client goes away (a response emits `close` in both cases). A response
 * already closed (its client left before the stream began) is not counted: its `close` is past.
 */
export function countOpenStream(response: ServerResponse, metrics: RunMetrics): void {
  if (response.destroyed) return;
  metrics.sseStream(1);
  response.once('close', () => metrics.sseStream(-1));
}
