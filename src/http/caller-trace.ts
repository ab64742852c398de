import type { FastifyRequest } from 'fastify';
import { parseTraceparent, type TraceOrigin } from '../domain/trace-context.ts';

/**
 * The trace context a request came with (W3C `traceparent` and `tracestate`), which a run it
 * creates continues; undefined when it has none, or none that is valid.
 */
export function callerTrace(request: FastifyRequest): TraceOrigin | undefined {
  const { traceparent, tracestate } = request.headers;
  if (typeof traceparent !== 'string') return undefined;
  return parseTraceparent(traceparent, typeof tracestate === 'string' ? tracestate : undefined);
}
