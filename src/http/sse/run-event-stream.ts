import type { ServerResponse } from 'node:http';
import { isStoreUnavailable } from '../../domain/errors.ts';
import type { EventStore, RunEventBus } from '../../engine/ports.ts';
import { LiveSubscription } from '../../engine/log/live-subscription.ts';
import { SseSequencer, type SseTransport } from '../../engine/log/sse-sequencer.ts';

export interface RunEventStreamOptions {
  store: EventStore;
  bus: RunEventBus;
  heartbeatMs: number;
}

/** Replay reads the next page only once the client has taken the previous one down to this. */
const REPLAY_BUFFERED_BYTES = 1024 * 1024;
/** A live subscriber this far behind reads the log at its own pace until it has caught up. */
const BEHIND_BUFFERED_BYTES = 8 * 1024 * 1024;
/** A log read refused by an unreachable database is tried again this much later, the stream kept open. */
const UNAVAILABLE_READ_RETRY_MS = 1000;

/**
 * Serves one SSE subscriber of a run over its HTTP response. What to send is
 * decided by an `SseSequencer` (replay from the log, then live, closing after
 * the terminal event); this carries it out: the live subscription (the log is
 * followed while Redis cannot deliver live events), log reads (tried again
 * while the database is unreachable), frames of one loop turn in one write,
 * replay paced by the client, and heartbeats.
 */
export class RunEventStream implements SseTransport {
  readonly #response: ServerResponse;
  readonly #runId: string;
  readonly #options: RunEventStreamOptions;
  readonly #sequencer: SseSequencer;
  #pending = '';
  #flushScheduled = false;
  readonly #flushPending = () => this.#flush();
  #closed = false;
  readonly #live: LiveSubscription;
  #heartbeat: NodeJS.Timeout | undefined;
  #readRetry: NodeJS.Timeout | undefined;
  #resolveClosed: () => void = () => {};
  readonly #closedPromise = new Promise<void>((resolve) => {
    this.#resolveClosed = resolve;
  });

  /** `run.ended`: its terminal event was already in the log when the subscriber came. */
  constructor(
    response: ServerResponse,
    run: { id: string; ended: boolean },
    afterSeq: number,
    options: RunEventStreamOptions,
  ) {
    this.#response = response;
    this.#runId = run.id;
    this.#options = options;
    this.#sequencer = new SseSequencer(afterSeq, run.ended, this);
    this.#live = new LiveSubscription({ bus: options.bus, runId: run.id, sequencer: this.#sequencer });
  }

  async start(): Promise<void> {
    this.#response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    this.#response.flushHeaders();
    this.#response.on('close', () => this.#close());
    // A client gone before the head was written: its `close` is past, so nothing follows it.
    if (this.#response.destroyed) return this.#close();
    this.#heartbeat = setInterval(() => this.#beat(), this.#options.heartbeatMs);
    this.#heartbeat.unref();
    await this.#live.start();
  }

  /**
   * Ends the response now: after the terminal event, or at service shutdown (the client resumes
   * elsewhere with Last-Event-ID).
   */
  end(): void {
    this.#flush();
    if (!this.#response.writableEnded) this.#response.end();
    this.#close();
  }

  /** Resolves when the subscriber is gone (terminal event sent, client left, or ended). */
  get closed(): Promise<void> {
    return this.#closedPromise;
  }

  // The SseTransport methods below are called by the stream's own sequencer only.

  write(frame: string): void {
    this.#pending += frame;
    if (!this.#flushScheduled) {
      // The events of one commit are published in one synchronous loop: a microtask runs right
      // after it, so they leave in one write without waiting for the next event-loop turn.
      this.#flushScheduled = true;
      queueMicrotask(this.#flushPending);
    }
  }

  readAfter(afterSeq: number, limit: number): void {
    this.#options.store.readAfter(this.#runId, afterSeq, limit).then(
      (events) => this.#sequencer.logRead(events),
      (error: unknown) => {
        if (this.#closed) return;
        if (!isStoreUnavailable(error)) {
          this.#response.destroy(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        // The run waits for its database too: the stream stays open (heartbeats go on) and reads again.
        this.#readRetry = setTimeout(() => this.readAfter(afterSeq, limit), UNAVAILABLE_READ_RETRY_MS);
        this.#readRetry.unref();
      },
    );
  }

  /** Tells the sequencer once what was written so far is mostly taken by the client (or the connection is gone). */
  whenTaken(): void {
    this.#flush();
    const response = this.#response;
    if (response.writableLength <= REPLAY_BUFFERED_BYTES || this.#closed) {
      this.#sequencer.clientTook();
      return;
    }
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      this.#sequencer.clientTook();
    };
    response.on('drain', done);
    response.on('close', done);
  }

  isBehind(): boolean {
    return this.#response.writableLength > BEHIND_BUFFERED_BYTES;
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#pending === '' || this.#response.writableEnded) return;
    this.#response.write(this.#pending);
    this.#pending = '';
  }

  #beat(): void {
    if (this.#sequencer.heartbeat()) this.#response.write(': heartbeat\n\n');
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#sequencer.close();
    this.#live.close();
    clearInterval(this.#heartbeat);
    clearTimeout(this.#readRetry);
    this.#resolveClosed();
  }
}
