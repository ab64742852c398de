import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { PresetSpanIds } from '../../src/infra/tracing/preset-span-ids.ts';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const RUN_SPAN_ID = 'b7ad6b7169203331';

/** A tracer provider of the test's own (never registered as the global one). */
function provider() {
  const ids = new PresetSpanIds();
  const exporter = new InMemorySpanExporter();
  const tracer = new TracerProvider({
    idGenerator: ids,
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  }).getTracer('test');
  return { ids, exporter, tracer };
}

describe("a run's invoke_agent span is reported with the id chosen at its creation", () => {
  it('a span started inside preset gets the preset span id under its parent; the next span gets a random one', () => {
    const { ids, exporter, tracer } = provider();
    const parent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: TRACE_ID,
      spanId: PARENT_ID,
      traceFlags: 1,
      isRemote: true,
    });
    ids
      .preset({ spanId: RUN_SPAN_ID, traceId: 'ffffffffffffffffffffffffffffffff' }, () =>
        tracer.startSpan('invoke_agent agent', {}, parent),
      )
      .end();
    tracer.startSpan('next', {}, parent).end();
    const [run, next] = exporter.getFinishedSpans();
    assert.equal(run?.spanContext().spanId, RUN_SPAN_ID);
    assert.equal(run?.spanContext().traceId, TRACE_ID, "a parent's trace id wins over the preset one");
    assert.equal(run?.parentSpanContext?.spanId, PARENT_ID);
    assert.notEqual(next?.spanContext().spanId, RUN_SPAN_ID);
    assert.match(next?.spanContext().spanId ?? '', /^[0-9a-f]{16}$/);
  });

  it('a span without a parent takes the preset trace id too', () => {
    const { ids, exporter, tracer } = provider();
    ids
      .preset({ spanId: RUN_SPAN_ID, traceId: TRACE_ID }, () => tracer.startSpan('root', {}, ROOT_CONTEXT))
      .end();
    tracer.startSpan('other root', {}, ROOT_CONTEXT).end();
    const [root, other] = exporter.getFinishedSpans();
    assert.equal(root?.spanContext().traceId, TRACE_ID);
    assert.equal(root?.spanContext().spanId, RUN_SPAN_ID);
    assert.notEqual(other?.spanContext().traceId, TRACE_ID);
  });
});
