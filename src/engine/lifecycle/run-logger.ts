import type { Run } from '../../domain/run.ts';

/** A logger that makes child loggers with bound fields (pino's `Logger`, Fastify's logger). */
export interface ChildLogger<L> {
  child(bindings: Record<string, unknown>): L;
}

/**
 * The logger of a run: every line written while the run executes goes through it, so each carries
 * the run's `runId`, and the `traceId` and `spanId` (its `invoke_agent` span) of its stored trace
 * context, so logs join the run's trace (extensions §3), without the call sites naming them. Made
 * once per execution of the run, never per event. A run stored before trace contexts were kept has
 * only its `runId`.
 */
export function runLogger<L extends ChildLogger<L>>(logger: L, run: Pick<Run, 'id' | 'traceContext'>): L {
  const trace = run.traceContext;
  return logger.child(
    trace ? { runId: run.id, traceId: trace.traceId, spanId: trace.spanId } : { runId: run.id },
  );
}
