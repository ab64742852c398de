import { setTimeout as delay } from 'node:timers/promises';
import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import { StoreUnavailableError } from '../domain/errors.ts';
import type { AdmittedRun, RunJob, RunJobOutcome, RunQueue } from '../engine/ports.ts';
import { redisReconnectDelay } from './redis-channels.ts';
import { redisCommand } from './unreachable-redis.ts';

export interface BullmqRunQueueOptions {
  redisUrl: string;
  concurrency: number;
  /** BullMQ key prefix (one per deployment sharing a Redis). */
  prefix: string;
  /** How long a worker's claim on a run lives without renewal: a killed worker's runs move on after this. */
  leaseMs: number;
}

const QUEUE_NAME = 'agent-runs';
/** Job states asked of Redis at once when looking for lost runs. */
const REQUEUE_CHECK_BATCH = 100;
/**
 * An enqueue that has not answered by then is reported as Redis unavailable (the run stays
 * admitted in the database, and the lost-run sweep queues it): a request never waits on Redis.
 */
const ENQUEUE_TIMEOUT_MS = 2000;
/**
 * How soon the worker tries again after a Redis command failed for want of a connection (BullMQ's
 * default, 15 s, would leave runs queued after an outage waiting that long).
 */
const WORKER_RETRY_DELAY_MS = 1000;

/** One job per admission of a run (jobs queued before admissions were counted are named by the run). */
function jobIdOf(job: RunJob): string {
  return job.admission ? `${job.runId}-${job.admission}` : job.runId;
}

/**
 * Admitted runs dispatched through Redis with BullMQ. The job id names the
 * run's admission, so an admission is queued at most once, and a run woken
 * while the job it parked from is still finishing gets a job of its own.
 * BullMQ's job lock is the run's lease: the
 * worker renews it while it works, and when a worker dies its lock lapses, the
 * stalled check puts the job back, and another worker takes the run over.
 */
export class BullmqRunQueue implements RunQueue {
  readonly #options: BullmqRunQueueOptions;
  readonly #queue: Queue;
  #worker: Worker | undefined;

  constructor(options: BullmqRunQueueOptions) {
    this.#options = options;
    this.#queue = new Queue(QUEUE_NAME, {
      prefix: options.prefix,
      // Producer commands fail at once while Redis is unreachable instead of waiting in a queue.
      connection: {
        url: options.redisUrl,
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        retryStrategy: redisReconnectDelay,
      },
    });
    this.#queue.on('error', () => {});
  }

  /** Throws `StoreUnavailableError` when Redis does not take the job (at once, or within 2 s). */
  async enqueue(job: RunJob): Promise<void> {
    const added = redisCommand(
      this.#queue.add('run', job, {
        jobId: jobIdOf(job),
        removeOnComplete: true,
        removeOnFail: 1000,
        attempts: 1,
      }),
    );
    const timeout = new AbortController();
    try {
      await Promise.race([
        added,
        delay(ENQUEUE_TIMEOUT_MS, undefined, { signal: timeout.signal }).then(() => {
          // Should it still land later, the job id makes it the same job as the sweep's.
          added.catch(() => undefined);
          throw new StoreUnavailableError('redis');
        }),
      ]);
    } finally {
      timeout.abort();
    }
  }

  /**
   * Queues again those of `runs` (admitted runs) that have no job to carry them: Redis lost it (a
   * restart without persistence, an eviction), the process stopped between admitting the run and
   * queueing it, or its job failed. Returns the runs queued again.
   */
  async requeueLost(runs: readonly AdmittedRun[]): Promise<string[]> {
    const requeued: string[] = [];
    for (let start = 0; start < runs.length; start += REQUEUE_CHECK_BATCH) {
      const batch = runs.slice(start, start + REQUEUE_CHECK_BATCH);
      const states = await redisCommand(
        Promise.all(batch.map((run) => this.#queue.getJobState(jobIdOf(run)))),
      );
      for (const [index, state] of states.entries()) {
        const run = batch[index] as AdmittedRun;
        if (state === 'unknown') {
          await this.enqueue(run);
        } else if (state === 'failed' || state === 'completed') {
          const job = await redisCommand(this.#queue.getJob(jobIdOf(run)));
          await redisCommand(
            job?.retry(state, { resetAttemptsMade: true, resetAttemptsStarted: true }) ?? Promise.resolve(),
          );
        } else {
          continue;
        }
        requeued.push(run.runId);
      }
    }
    return requeued;
  }

  consume(handle: (job: RunJob) => Promise<RunJobOutcome>): void {
    this.#worker = new Worker(
      QUEUE_NAME,
      async (job: Job<RunJob>, token?: string) => {
        const outcome = await handle(job.data);
        if (outcome === 'handed_over') {
          // Stopping (SIGTERM) before the run ended: back to the queue, due now, for another worker.
          await job.moveToDelayed(Date.now(), token);
          throw new DelayedError();
        }
      },
      {
        prefix: this.#options.prefix,
        connection: {
          url: this.#options.redisUrl,
          maxRetriesPerRequest: null,
          retryStrategy: redisReconnectDelay,
        },
        runRetryDelay: WORKER_RETRY_DELAY_MS,
        concurrency: this.#options.concurrency,
        lockDuration: this.#options.leaseMs,
        stalledInterval: Math.max(1000, Math.floor(this.#options.leaseMs / 2)),
        // A run whose worker died is taken over however often that happens; it never fails for stalling.
        maxStalledCount: 1_000_000,
      },
    );
    this.#worker.on('error', () => {});
  }

  async close(): Promise<void> {
    await this.#worker?.close();
    await this.#queue.close();
  }
}
