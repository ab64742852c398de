import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { Event as AgUiEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { FollowedRunEvent } from '../../../engine/log/run-event-follower.ts';
import type { RunMetrics } from '../../../engine/ports.ts';
import { countOpenStream } from '../../sse/open-stream-gauge.ts';
import type { RunEventTranslator } from './run-event-translator.ts';

export interface AgUiStreamOptions {
  /** Aborted when the service stops: the stream ends with `RUN_ERROR` (the run goes on). */
  stop: AbortSignal;
  metrics: RunMetrics;
  heartbeatMs: number;
  logger: FastifyBaseLogger;
}

/**
 * Streams one input's AG-UI events as `text/event-stream`: `RUN_STARTED`, then what the translator
 * makes of the run's events (read by `follow` from the first), to the translator's last event. A
 * client that leaves stops the following, not the run. Comment lines keep an idle stream open.
 */
export async function sendAgUiStream(
  reply: FastifyReply,
  translator: RunEventTranslator,
  follow: (signal: AbortSignal) => AsyncGenerator<FollowedRunEvent, void, undefined>,
  options: AgUiStreamOptions,
): Promise<void> {
  const encoder = new EventEncoder();
  const response = reply.raw;
  // The stream writes its own head on the raw response: keep the headers the hooks set (rate limits).
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) response.setHeader(name, value);
  }
  reply.hijack();
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  response.flushHeaders();
  countOpenStream(response, options.metrics);
  const gone = new AbortController();
  response.once('close', () => gone.abort(new Error('the client left')));
  const signal = AbortSignal.any([gone.signal, options.stop]);
  const writable = () => !response.writableEnded && !response.destroyed;
  const write = async (events: readonly AgUiEvent[]) => {
    if (events.length === 0 || !writable()) return;
    if (!response.write(events.map((event) => encoder.encodeSSE(event)).join(''))) {
      await drainedOrClosed(response);
    }
  };
  const heartbeat = setInterval(() => {
    if (writable()) response.write(': heartbeat\n\n');
  }, options.heartbeatMs);
  heartbeat.unref();
  try {
    await write([translator.started()]);
    for await (const event of follow(signal)) {
      await write(translator.translate(event));
      if (translator.done) break;
    }
  } catch (error) {
    if (!signal.aborted) options.logger.error({ err: error }, 'following a run for an AG-UI stream failed');
  } finally {
    clearInterval(heartbeat);
    if (!gone.signal.aborted) await write(translator.left()).catch(() => undefined);
    if (writable()) response.end();
  }
}

async function drainedOrClosed(response: ServerResponse): Promise<void> {
  const settled = new AbortController();
  const { signal } = settled;
  await Promise.race([once(response, 'drain', { signal }), once(response, 'close', { signal })]).finally(() =>
    settled.abort(),
  );
}
