import type { RunJob, RunJobOutcome, RunQueue } from '../engine/ports.ts';

/**
 * The embedded queue: jobs wait in memory and run in this process, at most
 * `concurrency` at a time. Runs left unfinished by a stop are found again at
 * start (`queued`/`running` rows) and re-enqueued by the composition root.
 */
export class InProcessRunQueue implements RunQueue {
  readonly #concurrency: number;
  readonly #waiting: RunJob[] = [];
  readonly #active = new Set<Promise<void>>();
  #handle: ((job: RunJob) => Promise<RunJobOutcome>) | undefined;
  #closed = false;

  constructor(options: { concurrency: number }) {
    this.#concurrency = options.concurrency;
  }

  async enqueue(job: RunJob): Promise<void> {
    if (this.#closed) throw new Error('the run queue is closed');
    this.#waiting.push(job);
    this.#drain();
  }

  consume(handle: (job: RunJob) => Promise<RunJobOutcome>): void {
    this.#handle = handle;
    this.#drain();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#waiting.length = 0;
    await Promise.allSettled([...this.#active]);
  }

  #drain(): void {
    const handle = this.#handle;
    if (!handle) return;
    while (!this.#closed && this.#active.size < this.#concurrency && this.#waiting.length > 0) {
      const job = this.#waiting.shift() as RunJob;
      const running: Promise<void> = handle(job)
        .then(() => undefined)
        .catch(() => {
          // The handler records its own failures as terminal events; nothing may escape the queue.
        })
        .finally(() => {
          this.#active.delete(running);
          this.#drain();
        });
      this.#active.add(running);
    }
  }
}
