import protobuf from 'protobufjs';
import type { TraceRequestBody } from './otlp-receiver.ts';

/**
 * The part of OTLP's `ExportTraceServiceRequest` (opentelemetry/proto/collector/trace/v1) the tests
 * read, with the protocol's field numbers; protobufjs decodes it and skips every other field.
 */
const root = protobuf.Root.fromJSON({
  nested: {
    AnyValue: {
      fields: {
        stringValue: { type: 'string', id: 1 },
        boolValue: { type: 'bool', id: 2 },
        intValue: { type: 'int64', id: 3 },
        doubleValue: { type: 'double', id: 4 },
        arrayValue: { type: 'ArrayValue', id: 5 },
      },
    },
    ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
    KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
    Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
    Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
    Span: {
      fields: {
        traceId: { type: 'bytes', id: 1 },
        spanId: { type: 'bytes', id: 2 },
        parentSpanId: { type: 'bytes', id: 4 },
        name: { type: 'string', id: 5 },
        kind: { type: 'int32', id: 6 },
        startTimeUnixNano: { type: 'fixed64', id: 7 },
        endTimeUnixNano: { type: 'fixed64', id: 8 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
        status: { type: 'Status', id: 15 },
      },
    },
    ScopeSpans: { fields: { spans: { rule: 'repeated', type: 'Span', id: 2 } } },
    ResourceSpans: {
      fields: {
        resource: { type: 'Resource', id: 1 },
        scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 },
      },
    },
    ExportTraceServiceRequest: {
      fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } },
    },
  },
});

const exportRequest = root.lookupType('ExportTraceServiceRequest');

/** An `http/protobuf` export body, in the shape of its `http/json` encoding (ids as hex). */
export function decodeTraceRequest(body: Uint8Array): TraceRequestBody {
  const decoded = exportRequest.toObject(exportRequest.decode(body), {
    longs: String,
    enums: Number,
    bytes: String,
  });
  return hexIds(decoded) as TraceRequestBody;
}

const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

/** `bytes: String` gives base64; OTLP/JSON writes ids as hex. */
function hexIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(hexIds);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [
      key,
      ID_FIELDS.has(key) && typeof field === 'string'
        ? Buffer.from(field, 'base64').toString('hex')
        : hexIds(field),
    ]),
  );
}
