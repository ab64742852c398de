import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newRunTraceContext, parseTraceparent } from '../../src/domain/trace-context.ts';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';

describe("a run's trace context (extensions §3: the run span is a child of the creating request's span)", () => {
  it("continues the creating request's trace: same trace id, flags and state, the request's span as parent, a new span id", () => {
    const context = newRunTraceContext({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: 1,
      traceState: 'k=v',
    });
    assert.equal(context.traceId, TRACE_ID);
    assert.equal(context.parentSpanId, SPAN_ID);
    assert.equal(context.traceFlags, 1);
    assert.equal(context.traceState, 'k=v');
    assert.match(context.spanId, /^[0-9a-f]{16}$/);
    assert.notEqual(context.spanId, SPAN_ID);
    assert.notEqual(context.spanId, '0'.repeat(16));
  });

  it('keeps an unsampled origin unsampled', () => {
    assert.equal(newRunTraceContext({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 0 }).traceFlags, 0);
  });

  it('without a traced origin starts a new sampled trace with random ids and no parent', () => {
    const first = newRunTraceContext(undefined);
    const second = newRunTraceContext(undefined);
    assert.match(first.traceId, /^[0-9a-f]{32}$/);
    assert.match(first.spanId, /^[0-9a-f]{16}$/);
    assert.equal(first.parentSpanId, null);
    assert.equal(first.traceFlags, 1);
    assert.notEqual(first.traceId, second.traceId);
    assert.notEqual(first.spanId, second.spanId);
  });
});

describe('traceparent (W3C Trace Context level 1)', () => {
  it('reads a valid header with its tracestate', () => {
    const header = `00-${TRACE_ID}-${SPAN_ID}-01`;
    const origin = parseTraceparent(header, 'congo=t61rcWkgMzE');
    assert.deepEqual(origin, {
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: 1,
      traceState: 'congo=t61rcWkgMzE',
    });
  });

  it('reads a later version by its first four fields', () => {
    assert.equal(parseTraceparent(`01-${TRACE_ID}-${SPAN_ID}-00-extra`)?.traceFlags, 0);
  });

  it('refuses invalid headers: version ff, all-zero ids, upper case, extra fields in version 00, wrong lengths', () => {
    for (const header of [
      `ff-${TRACE_ID}-${SPAN_ID}-01`,
      `00-${'0'.repeat(32)}-${SPAN_ID}-01`,
      `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
      `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`,
      `00-${TRACE_ID}-${SPAN_ID}-01-extra`,
      `00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`,
      '',
      undefined,
    ]) {
      assert.equal(parseTraceparent(header), undefined, String(header));
    }
  });
});
