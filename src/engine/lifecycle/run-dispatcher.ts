import type { Logger } from 'pino';
import type { AdmittedRun, DispatchStore, RunQueue } from '../ports.ts';

export interface RunDispatcherDeps {
  dispatch: DispatchStore;
  queue: RunQueue;
  logger: Logger;
}

/** How many parked runs or waiting workspaces one sweep takes up. */
const SWEEP_BATCH = 1000;

/**
 * Hands runs to workers fairly. A workspace's runs execute at most
 * `maxConcurrentRuns` at a time across all workers; the rest wait, in the
 * order they came, and are admitted (and queued for a worker) as slots free
 * up. A run waiting for a client tool result parks: it holds no slot until an
 * answer or its deadline wakes it, and then waits for a slot like any run.
 * Every transition is stored, so any replica can admit or wake any run; a
 * periodic sweep repairs what a crash between two steps left undone.
 */
export class RunDispatcher {
  readonly #deps: RunDispatcherDeps;
  readonly #wakeTimers = new Map<string, NodeJS.Timeout>();
  #sweepTimer: NodeJS.Timeout | undefined;
  #intervalMs = 0;
  #sweeping: Promise<void> | undefined;
  #closed = false;

  constructor(deps: RunDispatcherDeps) {
    this.#deps = deps;
  }

  /** Admits what fits of the workspace's waiting runs and queues them; returns the runs that could not be queued. */
  async admit(workspaceId: string): Promise<ReadonlySet<string>> {
    return this.#queue(await this.#deps.dispatch.admit(workspaceId));
  }

  /** A run admitted as it was stored (`RunStore.createAdmitting`): queued now. False when the queue refused it. */
  async queueAdmitted(job: AdmittedRun): Promise<boolean> {
    return (await this.#queue([job])).size === 0;
  }

  /** A cancelled run still waiting for a slot ends at once: it only writes its `cancelled`. */
  async admitCancelled(runId: string): Promise<void> {
    const admitted = await this.#deps.dispatch.admitCancelled(runId);
    if (admitted) await this.#queue([admitted]);
  }

  /** Queues admitted runs; returns those the queue refused (a sweep for lost jobs queues them again). */
  async #queue(admitted: readonly AdmittedRun[]): Promise<ReadonlySet<string>> {
    const unqueued = new Set<string>();
    for (const job of admitted) {
      try {
        await this.#deps.queue.enqueue(job);
      } catch (error) {
        this.#deps.logger.error({ runId: job.runId, err: error }, 'queueing an admitted run failed');
        unqueued.add(job.runId);
      }
    }
    return unqueued;
  }

  /** A slot of the workspace freed (a run ended or parked): the next waiting runs are admitted. */
  async slotFreed(workspaceId: string): Promise<void> {
    if (await this.#deps.dispatch.hasWaiting(workspaceId)) await this.admit(workspaceId);
  }

  /**
   * Parks the run until an answer wakes it or `wakeAt` (its client tool deadline, epoch ms) passes.
   * False when `attempt` no longer holds the run.
   */
  async park(runId: string, attempt: number, wakeAt: number): Promise<boolean> {
    if (!(await this.#deps.dispatch.park(runId, attempt, new Date(wakeAt).toISOString()))) return false;
    this.#wakeAt(runId, wakeAt);
    return true;
  }

  /** A parked run back in its workspace's line (an answer came, or its deadline passed: `dueBy`). */
  async wake(runId: string, dueBy?: string): Promise<void> {
    const workspaceId = await this.#deps.dispatch.wake(runId, dueBy);
    if (workspaceId !== undefined) await this.admit(workspaceId);
  }

  /** Starts the periodic sweep (and runs one now). */
  start(intervalMs: number): void {
    this.#intervalMs = intervalMs;
    this.#sweepTimer = setInterval(() => void this.sweep(), intervalMs);
    this.#sweepTimer.unref();
    void this.sweep();
  }

  /**
   * Wakes the parked runs whose deadline passed (their parking process may have stopped) and sets a
   * timer for those due before the next sweep; wakes those whose answer's wake failed; releases runs
   * held for a busy session that a crash left behind; admits the waiting runs of workspaces with free
   * slots (an admission lost between two steps).
   */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweepOnce().finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweepTimer);
    for (const timer of this.#wakeTimers.values()) clearTimeout(timer);
    this.#wakeTimers.clear();
    await this.#sweeping;
  }

  async #sweepOnce(): Promise<void> {
    const { dispatch, logger } = this.#deps;
    try {
      const nowMs = Date.now();
      const now = new Date(nowMs).toISOString();
      // Runs due before the next sweep get this process's timer: a run whose parking process is gone
      // still wakes at its deadline, not up to one interval after it.
      const nextSweep = new Date(nowMs + this.#intervalMs).toISOString();
      for (const { runId, wakeAt } of await dispatch.dueParked(nextSweep, SWEEP_BATCH)) {
        if (wakeAt <= now) await this.wake(runId, now);
        else if (!this.#wakeTimers.has(runId)) this.#wakeAt(runId, Date.parse(wakeAt));
      }
      for (const runId of await dispatch.answeredParked(SWEEP_BATCH)) await this.wake(runId);
      await dispatch.releaseStrandedSessionRuns(SWEEP_BATCH);
      for (const workspaceId of await dispatch.workspacesWithWaiting(SWEEP_BATCH)) {
        if (this.#closed) return;
        await this.admit(workspaceId);
      }
    } catch (error) {
      logger.warn({ err: error }, 'the dispatch sweep failed; trying again later');
    }
  }

  /** The deadline's wake, from this process; the sweep covers a process that stops before it. */
  #wakeAt(runId: string, wakeAt: number): void {
    if (this.#closed) return;
    clearTimeout(this.#wakeTimers.get(runId));
    const timer = setTimeout(
      () => {
        this.#wakeTimers.delete(runId);
        const dueBy = new Date(Math.max(Date.now(), wakeAt)).toISOString();
        this.wake(runId, dueBy).catch((error: unknown) =>
          this.#deps.logger.warn({ runId, err: error }, 'waking a parked run at its deadline failed'),
        );
      },
      Math.max(0, wakeAt - Date.now()),
    );
    timer.unref();
    this.#wakeTimers.set(runId, timer);
  }
}
