import type { Run } from '../../domain/run.ts';

/** A logger that makes child loggers with bound fields (pino's `Logger`, Fastify's logger). */
export interface ChildLogger<L> {
  child(bindings: Record<string, unknown>): L;
}

/**
 * The logger of a run: every line written while the run executes goes through it, so each carries
 * the run's id (and its trace context) without the call sites naming them. Made once per execution
 * of the run, never per event.
 */
export function runLogger<L extends ChildLogger<L>>(logger: L, run: Run): L {
  return logger.child({
    runId: run.id,
    // Trace fields (item 2 of issue 27): `traceId` and `spanId` of the run's `invoke_agent` span,
    // from the trace context stored on the run, go here.
  });
}
