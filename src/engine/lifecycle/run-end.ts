import type { Logger } from 'pino';
import type { Run } from '../../domain/run.ts';
import type { TerminalEvent } from '../loop/terminal-events.ts';
import type { RunMetrics } from '../ports.ts';
import type { RunTracing } from '../ports/tracing.ts';
import { logRunFinished } from './run-end-line.ts';

/**
 * Where a run's end is reported, once its terminal event is written: the finished-runs metric (its
 * status and time since creation), its `invoke_agent` span, and its one `run finished` line.
 */
export class RunEnd {
  readonly #metrics: RunMetrics;
  readonly #tracing: RunTracing;
  constructor(metrics: RunMetrics, tracing: RunTracing) {
    this.#metrics = metrics;
    this.#tracing = tracing;
  }

  /**
   * Reports the end of `run` with `terminal`, in the run's logger `log`. Called only by the attempt
   * whose write of the terminal event landed, so once per run whatever the attempts and takeovers
   * before it.
   */
  reported(run: Run, terminal: TerminalEvent, log: Logger): void {
    this.#tracing.runEnded(run, terminal.outcome);
    const { status } = terminal.outcome;
    if (status !== 'succeeded' && status !== 'failed' && status !== 'cancelled') return;
    const durationMs = Math.max(0, Date.now() - Date.parse(run.createdAt));
    this.#metrics.runFinished(run.workspaceId, status, durationMs / 1000);
    logRunFinished(log, status, terminal, durationMs);
  }
}
