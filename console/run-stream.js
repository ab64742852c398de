import { createParser } from './eventsource-parser.js';

const TERMINAL = new Set(['result', 'error', 'cancelled']);
const RETRY_MS = [500, 1000, 2000, 5000, 10000];

/**
 * Follows a run's event stream (`GET {ws}/agent-runs/{runId}/stream`) with fetch, since EventSource
 * cannot send an Authorization header. After a dropped connection it reconnects with `Last-Event-ID`
 * and skips anything at or below the last `seq` it delivered, so each event arrives once, in order.
 * Resolves after the terminal event or when `signal` aborts; rejects on a refusal (4xx).
 */
export async function followRunStream({ api, runId, onEvent, onConnection, signal }) {
  let lastSeq = null;
  let ended = false;
  let failures = 0;
  while (!ended && !signal.aborted) {
    onConnection(lastSeq === null ? 'connecting' : 'reconnecting');
    try {
      const headers = { authorization: `Bearer ${api.key}`, accept: 'text/event-stream' };
      if (lastSeq !== null) headers['last-event-id'] = String(lastSeq);
      const response = await fetch(`${api.ws}/agent-runs/${encodeURIComponent(runId)}/stream`, {
        headers,
        signal,
        cache: 'no-store',
      });
      if (response.status >= 400 && response.status < 500) {
        const body = await response.json().catch(() => null);
        const error = new Error(body?.message ?? `HTTP ${response.status}`);
        error.status = response.status;
        throw error;
      }
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      onConnection('live');
      const parser = createParser({
        onEvent(message) {
          const event = JSON.parse(message.data);
          if (typeof event.seq !== 'number' || (lastSeq !== null && event.seq <= lastSeq)) return;
          lastSeq = event.seq;
          failures = 0;
          if (TERMINAL.has(event.type)) ended = true;
          onEvent(event);
        },
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch (error) {
      if (signal.aborted) return;
      if (error && typeof error.status === 'number') throw error;
    }
    if (!ended && !signal.aborted) {
      const delay = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)];
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  if (ended) onConnection('ended');
}
