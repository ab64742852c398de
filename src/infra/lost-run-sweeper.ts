import type { Logger } from 'pino';
import type { AdmittedRun } from '../engine/ports.ts';

export interface LostRunSweeperOptions {
  /** Admitted runs (each must have a job, queued or running), oldest first. */
  listAdmitted(): Promise<AdmittedRun[]>;
  /** Queues again the runs among these that no job carries; returns them. */
  requeueLost(runs: readonly AdmittedRun[]): Promise<string[]>;
  intervalMs: number;
  logger: Logger;
}

/** After Redis comes back, a sweep that fails (the queue's own connection not back yet) is tried again this often. */
const RECONNECT_RETRY_MS = 1000;
const RECONNECT_RETRIES = 10;

/**
 * Scale-out: every `intervalMs`, a worker looks for admitted runs that no queued or running job
 * carries any more and queues them again, so that a run never waits forever for a job Redis lost.
 * It also sweeps as soon as Redis is back after an outage (`sweepSoon`): the runs accepted
 * meanwhile, and those whose jobs a restarted Redis forgot, go on within a second or two.
 * Several workers may sweep at once: queueing is idempotent (the job id is the run's admission).
 */
export class LostRunSweeper {
  readonly #options: LostRunSweeperOptions;
  readonly #timer: NodeJS.Timeout;
  #sweeping: Promise<boolean> | undefined;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: LostRunSweeperOptions) {
    this.#options = options;
    this.#timer = setInterval(() => void this.sweep(), options.intervalMs);
    this.#timer.unref();
  }

  /** One sweep (a sweep still running is awaited instead of starting another); true when it succeeded. */
  sweep(): Promise<boolean> {
    this.#sweeping ??= this.#sweepOnce().finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  /** Sweeps now, and again every second while that fails, up to ten times (Redis just came back). */
  sweepSoon(retries = RECONNECT_RETRIES): void {
    clearTimeout(this.#retry);
    if (this.#closed) return;
    void this.sweep().then((swept) => {
      if (swept || retries <= 0 || this.#closed) return;
      this.#retry = setTimeout(() => this.sweepSoon(retries - 1), RECONNECT_RETRY_MS);
      this.#retry.unref();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    clearTimeout(this.#retry);
    await this.#sweeping;
  }

  async #sweepOnce(): Promise<boolean> {
    const { listAdmitted, requeueLost, logger } = this.#options;
    try {
      const requeued = await requeueLost(await listAdmitted());
      if (requeued.length > 0) logger.warn({ runIds: requeued }, 'queued again runs whose job was lost');
      return true;
    } catch (error) {
      logger.warn({ err: error }, 'looking for runs whose job was lost failed; trying again later');
      return false;
    }
  }
}
