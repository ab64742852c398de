import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeTraceRequest } from './otlp-protobuf.ts';
import { WAIT_CAP_MS } from './waits.ts';

/** OTLP span kinds, as the protocol numbers them. */
export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;
export const STATUS_ERROR = 2;

/** One span as an OTLP exporter sent it, in either encoding. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeMs: number;
  endTimeMs: number;
  attributes: Record<string, unknown>;
  statusCode: number;
  /** The resource of the process that reported it (`service.name`, `process.pid`, …). */
  resource: Record<string, unknown>;
}

/** OTLP/JSON: ids as hex, 64-bit integers as strings or numbers. */
interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
}
interface JsonKeyValue {
  key: string;
  value?: JsonAnyValue;
}
interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: JsonKeyValue[];
  status?: { code?: number };
}
export interface TraceRequestBody {
  resourceSpans?: Array<{
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans?: Array<{ spans?: JsonSpan[] }>;
  }>;
}

/** An OTLP/HTTP trace receiver on loopback: it takes `POST /v1/traces` in `http/json` and `http/protobuf`. */
export interface OtlpReceiver {
  /** The endpoint for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  spans: ReceivedSpan[];
  /** The content type of every export received. */
  contentTypes: string[];
  /** Waits until `check` holds over the spans received (checked at each export). */
  until(check: (spans: readonly ReceivedSpan[]) => boolean, what: string): Promise<void>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const waiters = new Set<() => void>();
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== 'POST' || request.url !== '/v1/traces') {
      response.writeHead(404).end();
      return;
    }
    const contentType = request.headers['content-type'] ?? '';
    contentTypes.push(contentType);
    const body = Buffer.concat(chunks);
    const decoded: TraceRequestBody = contentType.startsWith('application/json')
      ? (JSON.parse(body.toString('utf8')) as TraceRequestBody)
      : decodeTraceRequest(body);
    spans.push(...receivedSpans(decoded));
    response.writeHead(200, { 'content-type': contentType }).end(contentType.includes('json') ? '{}' : '');
    for (const waiter of [...waiters]) waiter();
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      process.stderr.write(`the OTLP receiver could not read an export: ${String(error)}\n`);
      response.writeHead(400).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    until: (check, what) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(`timed out waiting until ${what}; spans: ${spans.map((span) => span.name).join(', ')}`),
          );
        }, WAIT_CAP_MS);
        const waiter = () => {
          if (!check(spans)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve();
        };
        waiters.add(waiter);
        waiter();
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function receivedSpans(body: TraceRequestBody): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span): ReceivedSpan => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind ?? 0,
        startTimeMs: Number(BigInt(span.startTimeUnixNano) / 1_000_000n),
        endTimeMs: Number(BigInt(span.endTimeUnixNano) / 1_000_000n),
        attributes: attributesOf(span.attributes),
        statusCode: span.status?.code ?? 0,
        resource,
      })),
    );
  });
}

function attributesOf(attributes: JsonKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

function valueOf(value: JsonAnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}
