import { randomBytes } from 'node:crypto';

/** A W3C trace context: the span that started something, as `traceparent` and `tracestate` carry it. */
export interface TraceOrigin {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  /** Bit 0: sampled. */
  traceFlags: number;
  traceState?: string;
}

/**
 * The trace a run belongs to, stored with it so that any process executing it continues the same
 * trace: `spanId` is the run's own `invoke_agent` span, chosen at creation; `parentSpanId` the span
 * of the request that created it (null when nothing traced the creation).
 */
export interface RunTraceContext {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  traceFlags: number;
  traceState?: string;
}

const SAMPLED = 1;

/**
 * A run's trace context: a child of `origin` (the creating request's span) when there is one, else
 * the root of a new trace (sampled: a sampler, where tracing is on, decides when the span is reported).
 */
export function newRunTraceContext(origin: TraceOrigin | undefined): RunTraceContext {
  const spanId = newSpanId();
  if (!origin) return { traceId: newTraceId(), spanId, parentSpanId: null, traceFlags: SAMPLED };
  return {
    traceId: origin.traceId,
    spanId,
    parentSpanId: origin.spanId,
    traceFlags: origin.traceFlags,
    ...(origin.traceState !== undefined && { traceState: origin.traceState }),
  };
}

function newTraceId(): string {
  return nonZeroHex(16);
}

function newSpanId(): string {
  return nonZeroHex(8);
}

function nonZeroHex(bytes: number): string {
  for (;;) {
    const hex = randomBytes(bytes).toString('hex');
    if (!/^0+$/.test(hex)) return hex;
  }
}
