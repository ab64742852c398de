import type { RunEventData, RunEventType, TerminalRunEvent } from '../../domain/run-events.ts';
import type { RunOutcome } from '../../domain/run.ts';
import type { SessionRunEnd } from '../ports.ts';
import type { EventLogWriter, FencedRuns } from './event-log-writer.ts';

/** A worker's write refused because a newer attempt owns the run (its lease lapsed and another worker took over). */
export class FencedOut extends Error {
  override name = 'FencedOut';
  constructor(runId: string) {
    super(`run ${runId} is owned by a newer attempt`);
  }
}

/** An event of the run was not written because an earlier commit of the run failed. */
export class BehindFailedCommit extends Error {
  override name = 'BehindFailedCommit';
  constructor(runId: string) {
    super(`an earlier event-log commit of run ${runId} failed`);
  }
}

/**
 * The events of one run, numbered: the worker that owns the run assigns each
 * `seq`. Deltas are appended without waiting; a failed commit is remembered
 * and reported (the run cannot go on with a hole in its log).
 */
export class RunEmitter {
  readonly runId: string;
  readonly #writer: EventLogWriter;
  readonly #attempt: number | undefined;
  #seq: number;
  #watched: Promise<FencedRuns> | undefined;
  #failure: unknown;
  readonly #onFailure: (error: unknown) => void;

  constructor(
    writer: EventLogWriter,
    runId: string,
    lastSeq: number,
    onFailure: (error: unknown) => void,
    attempt?: number,
  ) {
    this.#writer = writer;
    this.runId = runId;
    this.#seq = lastSeq;
    this.#onFailure = onFailure;
    this.#attempt = attempt;
  }

  /** True once a newer attempt took the run over: nothing this emitter writes lands any more. */
  get fencedOut(): boolean {
    return this.#failure instanceof FencedOut;
  }

  get lastSeq(): number {
    return this.#seq;
  }

  /** The attempt the run's writes are fenced with (undefined where writes are not fenced). */
  get attempt(): number | undefined {
    return this.#attempt;
  }

  /** Another write of the run found a newer attempt owning it: the run stops as for a fenced event. */
  fencedOutElsewhere(): void {
    this.#fail(new FencedOut(this.runId));
  }

  get failure(): unknown {
    return this.#failure;
  }

  emit<T extends RunEventType>(type: T, data: RunEventData[T]): void {
    const committed = this.#writer.append(this.runId, ++this.#seq, type, data, this.#fence());
    // Appends of one loop turn share one commit promise: watch each commit once, not each delta.
    if (committed !== this.#watched) {
      this.#watched = committed;
      committed.then(
        (fenced) => {
          if (fenced.has(this.runId)) this.#fail(new FencedOut(this.runId));
        },
        (error: unknown) => this.#fail(error),
      );
    }
  }

  #fail(error: unknown): void {
    if (this.#failure !== undefined) return;
    this.#failure = error;
    this.#onFailure(error);
  }

  #fence(): { attempt?: number } {
    return this.#attempt === undefined ? {} : { attempt: this.#attempt };
  }

  /**
   * After a failed commit, once the run emits nothing else: waits for the commits still pending
   * (the run's events in them are dropped) and continues numbering from what the log really holds,
   * so the terminal event does not stand behind a hole.
   */
  async resync(readLastDurableSeq: () => Promise<number>): Promise<void> {
    await this.#writer.recover(this.runId);
    this.#seq = await readLastDurableSeq();
    this.#failure = undefined;
    this.#watched = undefined;
  }

  /** Appends the terminal event with the run's outcome, and resolves once both are durable. */
  async end(terminal: TerminalRunEvent & { outcome: RunOutcome }, session?: SessionRunEnd): Promise<void> {
    const { type, data, outcome } = terminal;
    const fenced = await this.#writer.append(this.runId, ++this.#seq, type, data, {
      outcome,
      ...(session && { session }),
      ...this.#fence(),
    });
    if (fenced.has(this.runId)) throw new FencedOut(this.runId);
    if (this.#writer.isBroken(this.runId)) throw new BehindFailedCommit(this.runId);
  }

  /** Resolves once every event emitted so far is durable; throws if one of them failed to commit. */
  async durable(): Promise<void> {
    const fenced = await this.#writer.durable();
    if (fenced.has(this.runId)) this.#fail(new FencedOut(this.runId));
    if (this.#writer.isBroken(this.runId)) this.#fail(new BehindFailedCommit(this.runId));
    if (this.#failure !== undefined) throw this.#failure;
  }
}
