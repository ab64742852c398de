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
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const INVALID_TRACE_ID = '0'.repeat(32);
const INVALID_SPAN_ID = '0'.repeat(16);

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

/**
 * A `traceparent` header as W3C Trace Context level 1 reads it: version `ff` and all-zero ids are
 * invalid; a later version is read by its first four fields. Undefined when it is not valid.
 */
export function parseTraceparent(header: string | undefined, traceState?: string): TraceOrigin | undefined {
  const match = header === undefined ? null : TRACEPARENT.exec(header.trim());
  if (!match) return undefined;
  const [, version = '', traceId = '', spanId = '', flags = '', rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === INVALID_TRACE_ID || spanId === INVALID_SPAN_ID) return undefined;
  return {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16),
    ...(traceState !== undefined && traceState !== '' && { traceState }),
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
