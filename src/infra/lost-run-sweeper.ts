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

/**
 * Scale-out: every `intervalMs`, a worker looks for admitted runs that no queued or running job
 * carries any more and queues them again, so that a run never waits forever for a job Redis lost.
 * Several workers may sweep at once: queueing is idempotent (the job id is the run's admission).
 */
export class LostRunSweeper {
  readonly #options: LostRunSweeperOptions;
  readonly #timer: NodeJS.Timeout;
  #sweeping: Promise<void> | undefined;

  constructor(options: LostRunSweeperOptions) {
    this.#options = options;
    this.#timer = setInterval(() => void this.sweep(), options.intervalMs);
    this.#timer.unref();
  }

  /** One sweep (a sweep still running is awaited instead of starting another). */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweepOnce().finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#sweeping;
  }

  async #sweepOnce(): Promise<void> {
    const { listAdmitted, requeueLost, logger } = this.#options;
    try {
      const requeued = await requeueLost(await listAdmitted());
      if (requeued.length > 0) logger.warn({ runIds: requeued }, 'queued again runs whose job was lost');
    } catch (error) {
      logger.warn({ err: error }, 'looking for runs whose job was lost failed; trying again later');
    }
  }
}
