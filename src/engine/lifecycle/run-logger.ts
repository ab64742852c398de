import type { Logger } from 'pino';
import type { Run } from '../../domain/run.ts';

/**
 * The logger of a run's execution: every line carries its `runId`, and the `traceId` and `spanId`
 * (its `invoke_agent` span) of its stored trace context, so logs join the run's trace (extensions
 * §3). A run stored before trace contexts were kept has only its `runId`.
 */
export function runLogger(logger: Logger, run: Pick<Run, 'id' | 'traceContext'>): Logger {
  const trace = run.traceContext;
  return logger.child(
    trace ? { runId: run.id, traceId: trace.traceId, spanId: trace.spanId } : { runId: run.id },
  );
}
