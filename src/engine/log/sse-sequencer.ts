import { isTerminalEventType, type SerializedRunEvent } from '../../domain/run-events.ts';
import type { PublishedEvent } from '../ports.ts';
import { sseFrame } from '../../domain/sse-frame.ts';

/** Events per log read when replaying (a tool result's echo can be 2 MB, so a page is bounded by count). */
export const REPLAY_PAGE = 100;

/**
 * What the sequencer asks of the transport that carries its frames. Requests
 * are answered later through the sequencer's inputs: `readAfter` with
 * `logRead` (or by closing the stream when the read fails), `whenTaken` with
 * `clientTook`.
 */
export interface SseTransport {
  /** Queues one frame for the client; `event` is what it carries, for transports that want the event itself. */
  write(frame: string, event: SerializedRunEvent): void;
  /** Reads up to `limit` events with `seq > afterSeq` from the run's log. */
  readAfter(afterSeq: number, limit: number): void;
  /** Asks to be told when the client has taken what was written so far. */
  whenTaken(): void;
  /** The client is far behind on what was written (a slow reader, or a few large events at once). */
  isBehind(): boolean;
  /** Writes what is queued and closes the stream. */
  end(): void;
}

const NO_EVENTS: readonly PublishedEvent[] = [];

/** The request of the catch-up that is waiting for an answer. */
type Awaiting = 'replay_page' | 'client' | 'gap_fill' | undefined;

/**
 * Decides what one SSE subscriber of a run is sent, with no I/O of its own:
 * once the live subscription is up, replay `seq > cursor` from the log in
 * pages (the next one only once the client took the previous one), then
 * forward live events above the last seq sent (buffered during the catch-up;
 * a gap is filled from the log). A live subscriber that falls far behind goes
 * back to reading the log at its own pace, so a slow client, or large events
 * that arrive one by one, cost no memory beyond what it was already sent.
 * Closes right after the terminal event, or at once when resumed at or past
 * the end of a run that had ended.
 */
export class SseSequencer {
  readonly #transport: SseTransport;
  /** Its terminal event was already in the log when the subscriber came. */
  readonly #runEnded: boolean;
  #lastSent: number;
  #catchingUp = true;
  #awaiting: Awaiting;
  /** Live events that came during the catch-up, in any order, duplicates included. */
  #live: PublishedEvent[] = [];
  /** Buffered live events above the gap being read from the log. */
  #aboveGap: readonly PublishedEvent[] = NO_EVENTS;
  #sentSinceHeartbeat = false;
  #ended = false;
  /** The log is to be read once more when the catch-up in progress is done. */
  #readAgain = false;

  constructor(cursor: number, runEnded: boolean, transport: SseTransport) {
    this.#lastSent = cursor;
    this.#runEnded = runEnded;
    this.#transport = transport;
  }

  /** True until the log is caught up with; live events are buffered meanwhile. */
  get catchingUp(): boolean {
    return this.#catchingUp;
  }

  /** Input: the live subscription is up. The log is read only now, so no event can fall between the two. */
  subscribed(): void {
    if (!this.#ended) this.#readReplayPage();
  }

  /** Input: an event published on the run's channel (possibly a duplicate, or ahead of the log read). */
  liveEvent(event: PublishedEvent): void {
    if (this.#ended || event.seq <= this.#lastSent) return;
    if (this.#catchingUp) {
      // Waiting for the client, nothing is read from the log: the next read, made later, finds the event.
      if (this.#awaiting !== 'client') this.#live.push(event);
      return;
    }
    if (this.#transport.isBehind()) {
      this.#catchingUp = true;
      this.#awaitClient();
      return;
    }
    if (event.seq !== this.#lastSent + 1) {
      // A live event overtook the log read (possible across replicas): fill the gap from the log.
      this.#live.push(event);
      this.#catchUp();
      return;
    }
    this.#send(event, event.frame);
  }

  /** Input: the answer to the last `readAfter`. */
  logRead(events: readonly SerializedRunEvent[]): void {
    if (this.#ended) return;
    const answered = this.#awaiting;
    this.#awaiting = undefined;
    for (const event of events) this.#sendStored(event);
    if (this.#ended) return;
    if (answered === 'gap_fill') {
      const aboveGap = this.#aboveGap;
      this.#aboveGap = NO_EVENTS;
      this.#forwardInOrder(aboveGap);
      this.#forwardBuffered();
    } else if (events.length < REPLAY_PAGE) {
      this.#replayed();
    } else {
      this.#awaitClient();
    }
  }

  /** Input: the client has taken what was written (the answer to `whenTaken`). */
  clientTook(): void {
    if (!this.#ended && this.#awaiting === 'client') this.#readReplayPage();
  }

  /**
   * Input: a heartbeat interval passed. Returns true when it was idle (nothing sent during it), and
   * then also looks in the log, in case a live message was lost (Redis pub/sub does not redeliver),
   * so that a missed event, the terminal one included, still arrives.
   */
  heartbeat(): boolean {
    const idle = !this.#sentSinceHeartbeat && !this.#ended;
    this.#sentSinceHeartbeat = false;
    if (idle && !this.#catchingUp) this.#catchUp();
    return idle;
  }

  /**
   * Input: the log may hold events that did not come live (the subscription was not live for a
   * while, or is live again after a loss): it is read now, or right after the catch-up in progress.
   */
  logMayHaveMore(): void {
    if (this.#ended) return;
    if (this.#catchingUp) this.#readAgain = true;
    else this.#catchUp();
  }

  /** Input: the stream is closed (client gone, or service shutdown): nothing more is sent or read. */
  close(): void {
    this.#ended = true;
  }

  #awaitClient(): void {
    this.#awaiting = 'client';
    this.#transport.whenTaken();
  }

  #catchUp(): void {
    this.#catchingUp = true;
    this.#readReplayPage();
  }

  #readReplayPage(): void {
    this.#awaiting = 'replay_page';
    this.#transport.readAfter(this.#lastSent, REPLAY_PAGE);
  }

  #replayed(): void {
    if (this.#runEnded) {
      // Resumed at or past the terminal event: the log holds nothing more, so close now.
      this.#end();
      return;
    }
    this.#forwardBuffered();
  }

  /** Sends the live events buffered during the catch-up in seq order, reading a gap below them from the log. */
  #forwardBuffered(): void {
    while (!this.#ended) {
      const buffered = this.#live.filter((event) => event.seq > this.#lastSent).sort((a, b) => a.seq - b.seq);
      this.#live = [];
      const next = buffered[0];
      if (!next) break;
      if (next.seq !== this.#lastSent + 1) {
        // Still a gap: the missing events are durable by now, so the log has them.
        this.#aboveGap = buffered;
        this.#awaiting = 'gap_fill';
        this.#transport.readAfter(this.#lastSent, next.seq - this.#lastSent - 1);
        return;
      }
      this.#forwardInOrder(buffered);
    }
    this.#catchingUp = false;
    if (this.#readAgain && !this.#ended) {
      this.#readAgain = false;
      this.#catchUp();
    }
  }

  /** Sends the leading run of consecutive seqs of `sorted`; what stands behind a gap is buffered again. */
  #forwardInOrder(sorted: readonly PublishedEvent[]): void {
    for (const event of sorted) {
      if (event.seq === this.#lastSent + 1) this.#send(event, event.frame);
      else if (event.seq > this.#lastSent) this.#live.push(event);
    }
  }

  #sendStored(event: SerializedRunEvent): void {
    if (event.seq > this.#lastSent) this.#send(event, sseFrame(event.seq, event.type, event.dataJson));
  }

  #send(event: SerializedRunEvent, frame: string): void {
    if (this.#ended) return;
    this.#lastSent = event.seq;
    this.#sentSinceHeartbeat = true;
    this.#transport.write(frame, event);
    if (isTerminalEventType(event.type)) this.#end();
  }

  #end(): void {
    this.#ended = true;
    this.#transport.end();
  }
}
