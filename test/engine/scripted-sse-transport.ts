import type { SerializedRunEvent } from '../../src/domain/run-events.ts';
import { sseFrame } from '../../src/domain/sse-frame.ts';
import { SseSequencer, type SseTransport } from '../../src/engine/log/sse-sequencer.ts';
import type { PublishedEvent } from '../../src/engine/ports.ts';

/** A delta, or the run's `result` when `terminal`. */
export function logEvent(seq: number, terminal = false): SerializedRunEvent {
  return terminal
    ? { seq, type: 'result', dataJson: '{"subtype":"success","text":"done"}' }
    : { seq, type: 'assistant_delta', dataJson: `{"text":"t${seq}"}` };
}

/** Deltas `from..to`, the last one terminal when `terminal`. */
export function logEvents(from: number, to: number, terminal = false): SerializedRunEvent[] {
  const events: SerializedRunEvent[] = [];
  for (let seq = from; seq <= to; seq++) events.push(logEvent(seq, terminal && seq === to));
  return events;
}

/** The event as the bus delivers it, with its frame serialized once. */
export function published(event: SerializedRunEvent): PublishedEvent {
  return { ...event, frame: sseFrame(event.seq, event.type, event.dataJson) };
}

export interface ReadRequest {
  afterSeq: number;
  limit: number;
  /** The log's answer at the time of the request (a read that ran at once, answered later). */
  snapshot: readonly SerializedRunEvent[];
}

/**
 * A subscriber's transport over an in-memory log, driven by the test: it
 * records what the sequencer asks (frames, reads, waiting for the client,
 * the end), and the test answers when it chooses. It throws on what a
 * transport must never be asked: a frame after the end, two reads at once, a
 * read while waiting for the client to take the data.
 */
export class ScriptedTransport implements SseTransport {
  readonly sequencer: SseSequencer;
  readonly log: SerializedRunEvent[];
  /** The seqs of the frames written, in order. */
  readonly sent: number[] = [];
  readonly frames: string[] = [];
  readonly reads: ReadRequest[] = [];
  pendingRead: ReadRequest | undefined;
  waitingForClient = false;
  /** What the transport answers `isBehind` (the test sets it: a slow client, large events). */
  behind = false;
  ended = false;

  constructor(options: { cursor?: number; runEnded?: boolean; log?: SerializedRunEvent[] } = {}) {
    this.log = options.log ?? [];
    this.sequencer = new SseSequencer(options.cursor ?? 0, options.runEnded ?? false, this);
  }

  write(frame: string): void {
    if (this.ended) throw new Error(`frame written after the end: ${frame}`);
    this.frames.push(frame);
    this.sent.push(Number(/^id: (\d+)\n/.exec(frame)?.[1]));
  }

  readAfter(afterSeq: number, limit: number): void {
    if (this.pendingRead) throw new Error('a second log read while one is pending');
    if (this.waitingForClient) throw new Error('a log read before the client took the data');
    this.pendingRead = { afterSeq, limit, snapshot: this.#page(afterSeq, limit) };
    this.reads.push(this.pendingRead);
  }

  whenTaken(): void {
    this.waitingForClient = true;
  }

  isBehind(): boolean {
    return this.behind;
  }

  end(): void {
    if (this.ended) throw new Error('ended twice');
    this.ended = true;
    this.sequencer.close();
  }

  /** The pending read as `[afterSeq, limit]`. */
  requestedRead(): [number, number] | undefined {
    return this.pendingRead && [this.pendingRead.afterSeq, this.pendingRead.limit];
  }

  commit(...events: SerializedRunEvent[]): PublishedEvent[] {
    this.log.push(...events);
    return events.map(published);
  }

  /** Answers the pending read from the log as it is now, or as it was when asked (`stale`). */
  answerRead(options: { stale?: boolean } = {}): void {
    const read = this.pendingRead;
    if (!read) throw new Error('no log read pending');
    this.pendingRead = undefined;
    this.sequencer.logRead(options.stale ? read.snapshot : this.#page(read.afterSeq, read.limit));
  }

  clientTakes(): void {
    if (!this.waitingForClient) throw new Error('nothing waits for the client');
    this.waitingForClient = false;
    this.sequencer.clientTook();
  }

  #page(afterSeq: number, limit: number): SerializedRunEvent[] {
    return this.log.filter((event) => event.seq > afterSeq).slice(0, limit);
  }
}

/** `from..to`. */
export function seqs(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);
}
