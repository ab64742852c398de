import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeTraceRequest } from '../test/support/otlp-protobuf.ts';
import type { TraceRequestBody } from '../test/support/otlp-receiver.ts';

/** What the receiver got so far: export requests, their bytes, and the spans they held. */
export interface OtlpExports {
  requests: number;
  bytes: number;
  spans: number;
  /** Requests whose body could not be read as an OTLP trace export (still answered 200). */
  unreadable: number;
}

export interface OtlpReceiver {
  /** The base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it (the exporter appends `/v1/traces`). */
  url: string;
  /** Cumulative counts since the receiver started. */
  exports(): OtlpExports;
  close(): Promise<void>;
}

/**
 * A local OTLP/HTTP trace receiver on 127.0.0.1: takes `POST /v1/traces` in `http/protobuf` or
 * `http/json`, answers 200 with an empty export response in the same encoding (an empty protobuf
 * message, or `{}`), and counts requests, bytes and spans. It keeps nothing else.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const counts: OtlpExports = { requests: 0, bytes: 0, spans: 0, unreadable: 0 };
  const server = createServer((request, response) => void receive(request, response, counts));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports: () => ({ ...counts }),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

async function receive(request: IncomingMessage, response: ServerResponse, counts: OtlpExports) {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  if (request.method !== 'POST' || request.url?.split('?')[0] !== '/v1/traces') {
    response.writeHead(404).end();
    return;
  }
  const body = Buffer.concat(chunks);
  const json = (request.headers['content-type'] ?? '').includes('json');
  counts.requests++;
  counts.bytes += body.length;
  const spans = json ? jsonSpanCount(body) : protobufSpanCount(body);
  if (spans === undefined) counts.unreadable++;
  else counts.spans += spans;
  if (json) response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  else response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
}

/** `resourceSpans[].scopeSpans[].spans[]` of an OTLP/JSON ExportTraceServiceRequest. */
function jsonSpanCount(body: Buffer): number | undefined {
  try {
    return spanCount(JSON.parse(body.toString('utf8')) as TraceRequestBody);
  } catch {
    return undefined;
  }
}

/** The spans of a protobuf ExportTraceServiceRequest, decoded as the traces tests decode it. */
function protobufSpanCount(body: Buffer): number | undefined {
  try {
    return spanCount(decodeTraceRequest(body));
  } catch {
    return undefined;
  }
}

function spanCount(request: TraceRequestBody): number {
  let spans = 0;
  for (const resource of request.resourceSpans ?? []) {
    for (const scope of resource.scopeSpans ?? []) spans += scope.spans?.length ?? 0;
  }
  return spans;
}
