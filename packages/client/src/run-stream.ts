import { AgentRunsError, OAuthRefreshError, RateLimitError, RunStreamError } from './errors.ts';
import type { HttpTransport } from './http-transport.ts';
import { reconnectDelayMs, reconnectPolicy, sleep, type ReconnectOptions } from './reconnect-policy.ts';
import { MalformedFrameError, readRunEvents, type IdleWatch } from './sse-event-reader.ts';
import { isTerminalEvent, type RunEvent } from './types.ts';

export interface RunStreamOptions {
  /** Resume after this seq (events with a higher seq follow); from the run's first event when absent. */
  lastSeq?: number;
  /** Aborting closes the connection; the iteration then rejects with the signal's reason. */
  signal?: AbortSignal;
  reconnect?: ReconnectOptions;
}

/**
 * A run's events as an async iterable: each iteration opens the stream, reconnects after a drop with
 * `Last-Event-ID` (so no event is missed or repeated) and ends after the terminal event. Breaking out
 * of the loop closes the connection.
 */
export function runEventStream(
  target: RunStreamTarget,
  options: RunStreamOptions = {},
): AsyncIterable<RunEvent> {
  return { [Symbol.asyncIterator]: () => followRunEvents(target, options) };
}

/** The run a stream reads, and how to reach it. */
export interface RunStreamTarget {
  transport: HttpTransport;
  runId: string;
  /** Path of the run's stream route. */
  path: string;
  /** Whether the run has ended (its snapshot's `endedAt` is set). */
  hasEnded(signal?: AbortSignal): Promise<boolean>;
}

async function* followRunEvents(
  target: RunStreamTarget,
  options: RunStreamOptions,
): AsyncGenerator<RunEvent, void, undefined> {
  const { transport, runId, path } = target;
  const policy = reconnectPolicy(options.reconnect);
  const userSignal = options.signal;
  let lastSeq = options.lastSeq ?? 0;
  let sendCursor = options.lastSeq !== undefined;
  let failures = 0;
  let lastError: unknown;
  let retryAfterMs = 0;
  let endConfirmed = false;

  for (;;) {
    userSignal?.throwIfAborted();
    const connection = new AbortController();
    const signal = userSignal ? AbortSignal.any([userSignal, connection.signal]) : connection.signal;
    const idle = idleWatch(connection, policy.idleTimeoutMs);
    let progressed = false;
    try {
      idle.arm();
      const response = await transport.send({
        method: 'GET',
        path,
        headers: { accept: 'text/event-stream', ...(sendCursor && { 'last-event-id': String(lastSeq) }) },
        signal,
        // The reconnect policy governs the stream: its idle timeout, attempts and backoff.
        maxRetries: 0,
        timeout: Number.POSITIVE_INFINITY,
      });
      idle.disarm();
      if (!response.body) throw new TypeError('the run stream response has no body');
      for await (const event of readRunEvents(response.body, idle)) {
        if (event.seq <= lastSeq) continue; // never yield an event twice
        lastSeq = event.seq;
        sendCursor = true;
        progressed = true;
        failures = 0;
        yield event;
        if (isTerminalEvent(event)) return;
        // One read may hold several events: none is handed over once the caller has aborted.
        userSignal?.throwIfAborted();
      }
      if (!progressed) {
        // Resumed at or past the terminal event, the server closes at once with nothing to send. Once
        // the run is known to have ended, one more read replays anything after the cursor: if that is
        // empty too, the caller has seen the terminal event already.
        if (endConfirmed) return;
        if (await target.hasEnded(userSignal)) {
          endConfirmed = true;
          continue;
        }
      }
      lastError = new Error('the run stream ended before its terminal event');
    } catch (error) {
      if (userSignal?.aborted) throw userSignal.reason;
      if (!isRetryable(error)) throw error;
      lastError = error;
      retryAfterMs = error instanceof RateLimitError ? (error.retryAfterSeconds ?? 0) * 1000 : 0;
    } finally {
      idle.disarm();
      connection.abort();
    }
    if (!progressed) failures += 1;
    if (failures > policy.maxConsecutiveFailures) {
      throw new RunStreamError(
        {
          status: lastError instanceof AgentRunsError ? lastError.status : 0,
          code: 'stream_unavailable',
          message: `the stream of run ${runId} failed ${failures} times in a row (last seq ${lastSeq}): ${describe(lastError)}`,
          body: undefined,
          headers: lastError instanceof AgentRunsError ? lastError.headers : new Headers(),
          runId,
          lastSeq,
        },
        { cause: lastError },
      );
    }
    await sleep(reconnectDelayMs(policy, failures, retryAfterMs), userSignal);
    retryAfterMs = 0;
  }
}

/** Network failures, idle connections, 429 and 5xx are worth another attempt; refusals are not. */
function isRetryable(error: unknown): boolean {
  if (error instanceof MalformedFrameError || error instanceof OAuthRefreshError) return false;
  // Status 0: a ConnectionError, no answer at all.
  if (error instanceof AgentRunsError)
    return error.status === 0 || error.status === 429 || error.status >= 500;
  return true;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

/**
 * Aborts the connection when a wait for the network lasts `timeoutMs`; time the consumer spends on an
 * event does not count (the bytes wait in the socket meanwhile).
 */
function idleWatch(connection: AbortController, timeoutMs: number): IdleWatch {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    arm() {
      clearTimeout(timer);
      timer = setTimeout(
        () => connection.abort(new Error(`no data on the run stream for ${timeoutMs} ms`)),
        timeoutMs,
      );
    },
    disarm() {
      clearTimeout(timer);
    },
  };
}
