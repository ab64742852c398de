import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { RunEvent } from './types.ts';

/** A complete frame whose data is not a run event: reconnecting would replay the same bytes. */
export class MalformedFrameError extends Error {
  readonly frame: string;
  constructor(message: string, frame: string) {
    super(message);
    this.name = 'MalformedFrameError';
    this.frame = frame.slice(0, 500);
  }
}

/** Times the waits for the network, not the consumer: armed during each read, disarmed after it. */
export interface IdleWatch {
  arm(): void;
  disarm(): void;
}

/**
 * The run events of one SSE response body, in order. Only complete frames are dispatched (a frame cut
 * by a dropped connection is discarded), so every event yielded is whole.
 */
export async function* readRunEvents(
  body: ReadableStream<Uint8Array>,
  idle: IdleWatch,
): AsyncGenerator<RunEvent, void, undefined> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const parsed: RunEvent[] = [];
  let malformed: MalformedFrameError | undefined;
  const parser = createParser({
    onEvent(message) {
      if (malformed) return;
      try {
        parsed.push(runEventOf(message));
      } catch (error) {
        malformed = error as MalformedFrameError;
      }
    },
  });
  try {
    for (;;) {
      idle.arm();
      const { done, value } = await reader.read();
      idle.disarm();
      if (done) return;
      parser.feed(value);
      for (let event = parsed.shift(); event !== undefined; event = parsed.shift()) yield event;
      if (malformed) throw malformed;
    }
  } finally {
    // Closes the connection when the consumer stops early (break, abort, error).
    await reader.cancel().catch(() => undefined);
  }
}

/** The frame's JSON `{ seq, type, data }`: its `type` wins over the `event:` line, which middleware may strip. */
function runEventOf(message: EventSourceMessage): RunEvent {
  let frame: unknown;
  try {
    frame = JSON.parse(message.data);
  } catch {
    throw new MalformedFrameError('a run event frame whose data is not JSON', message.data);
  }
  const fields = (typeof frame === 'object' && frame !== null ? frame : {}) as Record<string, unknown>;
  const seq = typeof fields.seq === 'number' ? fields.seq : Number(message.id ?? Number.NaN);
  const type = typeof fields.type === 'string' ? fields.type : message.event;
  if (!Number.isSafeInteger(seq) || typeof type !== 'string') {
    throw new MalformedFrameError('a run event frame without a seq and a type', message.data);
  }
  return { seq, type, data: fields.data ?? {} } as RunEvent;
}
