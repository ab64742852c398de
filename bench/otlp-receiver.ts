import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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
    const request = JSON.parse(body.toString('utf8')) as {
      resourceSpans?: { scopeSpans?: { spans?: unknown[] }[] }[];
    };
    let spans = 0;
    for (const resource of request.resourceSpans ?? []) {
      for (const scope of resource.scopeSpans ?? []) spans += scope.spans?.length ?? 0;
    }
    return spans;
  } catch {
    return undefined;
  }
}

/**
 * The spans of a protobuf ExportTraceServiceRequest: `resource_spans` (field 1) hold `scope_spans`
 * (field 2), which hold `spans` (field 2), each length-delimited. Only those three levels are walked
 * (every other field is skipped by its wire type), so no schema or protobuf library is needed.
 */
function protobufSpanCount(body: Buffer): number | undefined {
  try {
    let spans = 0;
    for (const resource of fieldsNumbered(body, 1)) {
      for (const scope of fieldsNumbered(resource, 2)) spans += fieldsNumbered(scope, 2).length;
    }
    return spans;
  } catch {
    return undefined;
  }
}

/** The length-delimited fields of one message with this field number, in order. */
function fieldsNumbered(message: Buffer, field: number): Buffer[] {
  const found: Buffer[] = [];
  let offset = 0;
  const varint = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      if (offset >= message.length || shift > 63) throw new Error('truncated varint');
      const byte = message[offset++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  };
  while (offset < message.length) {
    const key = varint();
    const wireType = key % 8;
    const number = Math.floor(key / 8);
    if (wireType === 0) varint();
    else if (wireType === 1) offset += 8;
    else if (wireType === 5) offset += 4;
    else if (wireType === 2) {
      const length = varint();
      if (offset + length > message.length) throw new Error('truncated field');
      if (number === field) found.push(message.subarray(offset, offset + length));
      offset += length;
    } else throw new Error(`unsupported wire type ${wireType}`);
  }
  if (offset !== message.length) throw new Error('truncated message');
  return found;
}
