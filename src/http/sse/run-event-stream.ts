import type { ServerResponse } from 'node:http';
import { isTerminalEventType, type SerializedRunEvent } from '../../domain/run-events.ts';
import type { EventStore, PublishedEvent, RunEventBus } from '../../engine/ports.ts';
import { sseFrame } from '../../engine/log/sse-frame.ts';

export interface RunEventStreamOptions {
  store: EventStore;
  bus: RunEventBus;
  heartbeatMs: number;
}

/** Events per log read when replaying (a tool result's echo can be 2 MB, so a page is bounded by count). */
const REPLAY_PAGE = 100;
/** Replay reads the next page only once the client has taken the previous one down to this. */
const REPLAY_BUFFERED_BYTES = 1024 * 1024;
/** A live subscriber this far behind on earlier frames is disconnected; it can resume with Last-Event-ID. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

/**
 * Serves one SSE subscriber of a run: subscribe to live events first, replay
 * `seq > cursor` from the log, then forward live events above the last seq
 * sent (buffered during catch-up; a gap is filled from the log). Frames of one
 * loop turn go out in one write. Closes right after the terminal event.
 */
export class RunEventStream {
  readonly #response: ServerResponse;
  readonly #runId: string;
  readonly #options: RunEventStreamOptions;
  readonly #runEnded: boolean;
  #lastSent: number;
  #catchingUp = true;
  #live: PublishedEvent[] = [];
  #pending = '';
  #flushScheduled = false;
  #wroteSinceHeartbeat = false;
  #ended = false;
  #unsubscribe: () => void = () => {};
  #heartbeat: NodeJS.Timeout | undefined;
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
    this.#runEnded = run.ended;
    this.#lastSent = afterSeq;
    this.#options = options;
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
    this.#unsubscribe = await this.#options.bus.subscribe(this.#runId, (event) => this.#onLive(event));
    if (this.#ended) this.#unsubscribe();
    this.#heartbeat = setInterval(() => this.#beat(), this.#options.heartbeatMs);
    this.#heartbeat.unref();
    await this.#catchUp();
  }

  #onLive(event: PublishedEvent): void {
    if (this.#ended || event.seq <= this.#lastSent) return;
    if (this.#catchingUp) {
      this.#live.push(event);
      return;
    }
    if (event.seq !== this.#lastSent + 1) {
      // A live event overtook the log read (possible across replicas): fill the gap from the log.
      this.#live.push(event);
      this.#catchingUp = true;
      void this.#catchUp();
      return;
    }
    this.#send(event.seq, event.type, event.frame);
  }

  async #catchUp(): Promise<void> {
    try {
      for (;;) {
        const page = await this.#options.store.readAfter(this.#runId, this.#lastSent, REPLAY_PAGE);
        for (const event of page) this.#sendStored(event);
        if (this.#ended || page.length < REPLAY_PAGE) break;
        await this.#taken();
      }
      if (this.#runEnded) {
        // Resumed at or past the terminal event: the log holds nothing more, so close now.
        this.end();
        return;
      }
      while (!this.#ended) {
        const buffered = this.#live
          .filter((event) => event.seq > this.#lastSent)
          .sort((a, b) => a.seq - b.seq);
        this.#live = [];
        const next = buffered[0];
        if (!next) break;
        if (next.seq !== this.#lastSent + 1) {
          // Still a gap: the missing events are durable by now, so the log has them.
          const page = await this.#options.store.readAfter(
            this.#runId,
            this.#lastSent,
            next.seq - this.#lastSent - 1,
          );
          for (const event of page) this.#sendStored(event);
        }
        for (const event of buffered) {
          if (event.seq === this.#lastSent + 1) this.#send(event.seq, event.type, event.frame);
          else if (event.seq > this.#lastSent) this.#live.push(event);
        }
      }
    } catch (error) {
      this.#response.destroy(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.#catchingUp = false;
  }

  #sendStored(event: SerializedRunEvent): void {
    if (event.seq <= this.#lastSent) return;
    this.#send(event.seq, event.type, sseFrame(event.seq, event.type, event.dataJson));
  }

  #send(seq: number, type: string, frame: string): void {
    if (this.#ended) return;
    this.#lastSent = seq;
    this.#pending += frame;
    this.#wroteSinceHeartbeat = true;
    if (isTerminalEventType(type)) {
      this.#flush();
      this.#response.end();
      this.#close();
      return;
    }
    if (!this.#flushScheduled) {
      // The events of one commit are published in one synchronous loop: a microtask runs right
      // after it, so they leave in one write without waiting for the next event-loop turn.
      this.#flushScheduled = true;
      queueMicrotask(() => this.#flush());
    }
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#pending === '' || this.#response.writableEnded) return;
    // Replay paces itself (#taken); a live subscriber still this far behind on what it was sent
    // before is let go (one large event alone never is).
    const behind = this.#response.writableLength;
    this.#response.write(this.#pending);
    this.#pending = '';
    if (!this.#catchingUp && behind > MAX_BUFFERED_BYTES) this.#response.destroy();
  }

  /** Resolves once what was written so far is mostly taken by the client (or the connection is gone). */
  async #taken(): Promise<void> {
    this.#flush();
    const response = this.#response;
    if (response.writableLength <= REPLAY_BUFFERED_BYTES || this.#ended) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        response.off('drain', done);
        response.off('close', done);
        resolve();
      };
      response.on('drain', done);
      response.on('close', done);
    });
  }

  #beat(): void {
    if (!this.#wroteSinceHeartbeat && !this.#ended) {
      this.#response.write(': heartbeat\n\n');
      // Idle for a whole interval: look in the log too, in case a live message was lost (Redis
      // pub/sub does not redeliver), so that a missed event, the terminal one included, still arrives.
      if (!this.#catchingUp) {
        this.#catchingUp = true;
        void this.#catchUp();
      }
    }
    this.#wroteSinceHeartbeat = false;
  }

  /** Ends the response now (service shutdown); the client resumes elsewhere with Last-Event-ID. */
  end(): void {
    this.#flush();
    if (!this.#response.writableEnded) this.#response.end();
    this.#close();
  }

  /** Resolves when the subscriber is gone (terminal event sent, client left, or ended). */
  get closed(): Promise<void> {
    return this.#closedPromise;
  }

  #close(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#unsubscribe();
    clearInterval(this.#heartbeat);
    this.#resolveClosed();
  }
}
