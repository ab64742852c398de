import type { Logger } from 'pino';
import type { FinishedRunStatus } from '../ports.ts';
import type { TerminalEvent } from '../loop/terminal-events.ts';

/**
 * The one `info` line of a run's end, written with the run's logger once its terminal event is
 * durable: how it ended, how long it took from creation, and what it used.
 */
export function logRunFinished(
  log: Pick<Logger, 'info'>,
  status: FinishedRunStatus,
  terminal: TerminalEvent,
  durationMs: number,
): void {
  const { turns, tokens, model, failureReason } = terminal.outcome;
  log.info(
    {
      status,
      ...(failureReason && { errorClass: failureReason.errorClass }),
      durationMs,
      turns,
      tokens,
      model,
    },
    'run finished',
  );
}
