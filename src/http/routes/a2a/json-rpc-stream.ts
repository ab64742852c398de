import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import type { FastifyReply } from 'fastify';
import type { RunMetrics } from '../../../engine/ports.ts';
import { countOpenStream } from '../../sse/open-stream-gauge.ts';

/**
 * Serves a streaming JSON-RPC answer (`message/stream`, `SendStreamingMessage`, and the resubscriptions) as the SDK's JSON-RPC transport does: when
 * its first response fails, one JSON error response and no stream; otherwise `text/event-stream`,
 * one `data:` frame per JSON-RPC response, an `event: error` frame if it fails midway, and the end
 * after the last one. A client that leaves stops the writing, not the reading: the task goes on to
 * its end (its run is not cancelled by a disconnect, as on the runs API). `stop` ends the response
 * early (service shutdown). The stream counts as open from its head to its end or its client leaving.
 */
export async function sendJsonRpcStream(
  reply: FastifyReply,
  stream: AsyncGenerator<unknown, void, undefined>,
  requestId: string | number | null,
  options: { stop: AbortSignal; metrics: RunMetrics; errorResponse?: ErrorResponse },
): Promise<void> {
  const { stop } = options;
  const errorResponse = options.errorResponse ?? legacyErrorResponse;
  let first: IteratorResult<unknown, void>;
  try {
    first = await stream.next();
  } catch (error) {
    await reply.send(errorResponse(requestId, error));
    return;
  }
  const response = reply.raw;
  // The stream writes its own head on the raw response: keep the headers the hooks set (rate limits).
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) response.setHeader(name, value);
  }
  reply.hijack();
  response.writeHead(200, SSE_HEADERS);
  response.flushHeaders();
  countOpenStream(response, options.metrics);
  const writable = () => !response.writableEnded && !response.destroyed;
  const end = () => {
    if (writable()) response.end();
  };
  stop.addEventListener('abort', end, { once: true });
  try {
    for (let next = first; !next.done; next = await stream.next()) {
      if (writable() && !response.write(formatSSEEvent(next.value))) await drainedOrClosed(response);
    }
  } catch (error) {
    if (writable()) response.write(formatSSEErrorEvent(errorResponse(requestId, error)));
  } finally {
    stop.removeEventListener('abort', end);
    end();
  }
}

async function drainedOrClosed(response: ServerResponse): Promise<void> {
  const settled = new AbortController();
  const { signal } = settled;
  await Promise.race([once(response, 'drain', { signal }), once(response, 'close', { signal })]).finally(() =>
    settled.abort(),
  );
}

/** The JSON-RPC error response a failure of the stream is answered with (v0.3 shapes by default). */
export type ErrorResponse = (id: string | number | null, error: unknown) => object;

function legacyErrorResponse(id: string | number | null, error: unknown) {
  return { jsonrpc: '2.0', id, error: LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error) };
}
