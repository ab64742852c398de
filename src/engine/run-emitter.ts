import type { RunOutcome } from '../domain/run.ts';
import type { EventLogWriter } from './event-log-writer.ts';
import type { SessionRunEnd } from './ports.ts';

/**
 * The events of one run, numbered: the worker that owns the run assigns each
 * `seq`. Deltas are appended without waiting; a failed commit is remembered
 * and reported (the run cannot go on with a hole in its log).
 */
export class RunEmitter {
  readonly runId: string;
  readonly #writer: EventLogWriter;
  #seq: number;
  #watched: Promise<void> | undefined;
  #failure: unknown;
  readonly #onFailure: (error: unknown) => void;

  constructor(writer: EventLogWriter, runId: string, lastSeq: number, onFailure: (error: unknown) => void) {
    this.#writer = writer;
    this.runId = runId;
    this.#seq = lastSeq;
    this.#onFailure = onFailure;
  }

  get lastSeq(): number {
    return this.#seq;
  }

  get failure(): unknown {
    return this.#failure;
  }

  emit(type: string, data: unknown): void {
    const committed = this.#writer.append(this.runId, ++this.#seq, type, data);
    // Appends of one loop turn share one commit promise: watch each commit once, not each delta.
    if (committed !== this.#watched) {
      this.#watched = committed;
      committed.catch((error: unknown) => {
        if (this.#failure !== undefined) return;
        this.#failure = error;
        this.#onFailure(error);
      });
    }
  }

  /**
   * After a failed commit, continue numbering from what the log really holds,
   * so the terminal event does not stand behind a hole.
   */
  resync(lastDurableSeq: number): void {
    this.#seq = lastDurableSeq;
    this.#failure = undefined;
    this.#watched = undefined;
  }

  /** Appends the terminal event with the run's outcome, and resolves once both are durable. */
  async end(type: string, data: unknown, outcome: RunOutcome, session?: SessionRunEnd): Promise<void> {
    await this.#writer.append(this.runId, ++this.#seq, type, data, outcome, session);
  }

  /** Resolves once every event emitted so far is durable; throws if one of them failed to commit. */
  async durable(): Promise<void> {
    await this.#writer.durable();
    if (this.#failure !== undefined) throw this.#failure;
  }
}
