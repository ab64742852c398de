import { setTimeout as delay } from 'node:timers/promises';
import { dataJsonOfFrame } from '../domain/sse-frame.ts';
import type { PublishedEvent, RunEventBus, RunSignal, RunSignals } from '../engine/ports.ts';
import type { RedisChannels } from './redis-channels.ts';

/**
 * How long a worker starting a run waits for its signal channel while Redis is unreachable before
 * going on without it: the run's periodic read of its stored cancel request covers the gap.
 */
const SIGNALS_WAIT_MS = 1000;

/** One event as it travels: its SSE frame carries its data (`dataJson` is taken back out of it). */
type EventMessage = Omit<PublishedEvent, 'dataJson'>;

/** The events of one group commit of a run, in seq order. */
interface BatchMessage {
  events: EventMessage[];
}

/** What of an event travels: not `dataJson`, which its frame holds. */
function eventMessage({ seq, type, frame }: PublishedEvent): EventMessage {
  return { seq, type, frame };
}

/**
 * Live events across replicas. The writer publishes a run's events of one commit together: several
 * go as ONE message `{ events: [{ seq, type, frame }, …] }`, a single one as `{ seq, type, frame }`,
 * the message every version published per event, which subscribers still read (a rolling upgrade
 * runs older publishers beside newer subscribers; upgrade the API processes before the workers, as
 * older subscribers cannot read a batch). The SSE frame travels as built once by the writer, and
 * subscribers take the event's data back out of it (readers inside the service, such as the hosted
 * A2A endpoint, decode it). The log stays the source of truth: a reader that misses a message fills
 * the gap from it.
 */
export class RedisRunEventBus implements RunEventBus {
  readonly #channels: RedisChannels;
  readonly #prefix: string;
  constructor(channels: RedisChannels, prefix: string) {
    this.#channels = channels;
    this.#prefix = prefix;
  }

  publish(runId: string, events: readonly PublishedEvent[]): void {
    const [first] = events;
    if (!first) return;
    const message = JSON.stringify(
      events.length === 1
        ? eventMessage(first)
        : ({ events: events.map(eventMessage) } satisfies BatchMessage),
    );
    // A lost publish is repaired by the readers' gap fill from the log.
    this.#channels.publish(`${this.#prefix}:events:${runId}`, message).catch(() => undefined);
  }

  async subscribe(
    runId: string,
    listener: (event: PublishedEvent) => void,
    onLiveness?: (live: boolean) => void,
  ): Promise<() => void> {
    const deliver = ({ seq, type, frame }: EventMessage) =>
      listener({ seq, type, frame, dataJson: dataJsonOfFrame(seq, type, frame) });
    const { ready, stop } = this.#channels.listen(
      `${this.#prefix}:events:${runId}`,
      (message) => {
        const decoded = JSON.parse(message) as EventMessage | BatchMessage;
        if ('events' in decoded) for (const event of decoded.events) deliver(event);
        else deliver(decoded);
      },
      onLiveness,
    );
    try {
      await ready;
    } catch (error) {
      stop();
      throw error;
    }
    return stop;
  }
}

/** Cancellations and tool-result notices, delivered to whichever worker holds the run. */
export class RedisRunSignals implements RunSignals {
  readonly #channels: RedisChannels;
  readonly #prefix: string;
  constructor(channels: RedisChannels, prefix: string) {
    this.#channels = channels;
    this.#prefix = prefix;
  }

  async send(runId: string, signal: RunSignal): Promise<void> {
    await this.#channels.publish(`${this.#prefix}:signals:${runId}`, JSON.stringify(signal));
  }

  /** Resolves once signals are received, or after a second while Redis is unreachable (they are once it is back). */
  async listen(runId: string, listener: (signal: RunSignal) => void): Promise<() => void> {
    const { ready, stop } = this.#channels.listen(`${this.#prefix}:signals:${runId}`, (message) =>
      listener(JSON.parse(message) as RunSignal),
    );
    const waited = new AbortController();
    await Promise.race([
      ready.catch(() => undefined),
      delay(SIGNALS_WAIT_MS, undefined, { signal: waited.signal }),
    ]).catch(() => undefined);
    waited.abort();
    return stop;
  }
}
