import type { RunJob, RunJobOutcome, RunQueue } from '../engine/ports.ts';

/** When a job's handler fails (it could not even end its run), the job runs again after this. */
const DEFAULT_RETRY_DELAY_MS = 60_000;

/**
 * The embedded queue: jobs wait in memory and run in this process, at most
 * `concurrency` at a time. Runs left unfinished by a stop are found again at
 * start (`queued`/`running` rows) and re-enqueued by the composition root; a
 * job whose handler fails (storage unreachable for longer than the handler's
 * own retries) is queued again after `retryDelayMs`, so its run is not left
 * without an end until the next start.
 */
export class InProcessRunQueue implements RunQueue {
  readonly #concurrency: number;
  readonly #retryDelayMs: number;
  readonly #waiting: RunJob[] = [];
  readonly #active = new Set<Promise<void>>();
  readonly #retries = new Set<NodeJS.Timeout>();
  #handle: ((job: RunJob) => Promise<RunJobOutcome>) | undefined;
  #closed = false;

  constructor(options: { concurrency: number; retryDelayMs?: number }) {
    this.#concurrency = options.concurrency;
    this.#retryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
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
    for (const retry of this.#retries) clearTimeout(retry);
    this.#retries.clear();
    await Promise.allSettled([...this.#active]);
  }

  #drain(): void {
    const handle = this.#handle;
    if (!handle) return;
    while (!this.#closed && this.#active.size < this.#concurrency && this.#waiting.length > 0) {
      const job = this.#waiting.shift() as RunJob;
      const running: Promise<void> = handle(job)
        .then(() => undefined)
        .catch(() => this.#retryLater(job))
        .finally(() => {
          this.#active.delete(running);
          this.#drain();
        });
      this.#active.add(running);
    }
  }

  #retryLater(job: RunJob): void {
    if (this.#closed) return;
    const retry = setTimeout(() => {
      this.#retries.delete(retry);
      if (!this.#closed) void this.enqueue(job);
    }, this.#retryDelayMs);
    retry.unref();
    this.#retries.add(retry);
  }
}
