import type { Run } from '../../domain/run.ts';
import { isTerminalEventType } from '../../domain/run-events.ts';
import type { RetainedToolPair } from '../../domain/session-history.ts';
import type { RunEmitter } from '../log/run-emitter.ts';
import { sessionInputItems, sessionTurnItems } from '../loop/session-turns.ts';
import { errorBeforeAnyTurn, type RunFailure, type TerminalEvent } from '../loop/terminal-events.ts';
import type { EventStore, SessionRunEnd } from '../ports.ts';

/**
 * A session run's end: a success appends its turns; anything else only frees the session, unless a
 * later message interrupted the run (its user turns and completed turns stay: `kept`). A plan-only
 * run's result (it carries a plan) appends nothing: the plan is no turn of the conversation.
 */
export function sessionEnd(
  run: Run,
  terminal: TerminalEvent,
  retained: readonly RetainedToolPair[],
): SessionRunEnd | undefined {
  if (!run.sessionId) return undefined;
  const appends =
    terminal.type === 'result' && terminal.data.subtype === 'success' && terminal.data.plan === undefined;
  return {
    sessionId: run.sessionId,
    runId: run.id,
    append: appends ? sessionTurnItems(run.spec, retained, terminal.outcome.finalText ?? '') : null,
    kept: sessionInputItems(run.spec, retained),
  };
}

/**
 * Ends a run that cannot be carried on (a log that cannot be continued, storage failing for good)
 * with an error the client can retry, after its last durable event.
 */
export async function endWithError(
  emitter: RunEmitter,
  run: Run,
  failure: RunFailure,
): Promise<TerminalEvent> {
  const terminal = errorBeforeAnyTurn(failure, run.spec);
  await emitter.end(terminal, sessionEnd(run, terminal, []));
  return terminal;
}

/** Whether the run's log ends with its terminal event at `lastSeq` (a commit reported failed may have landed). */
export async function endsWithTerminalEvent(
  events: EventStore,
  runId: string,
  lastSeq: number,
): Promise<boolean> {
  if (lastSeq === 0) return false;
  const [last] = await events.readAfter(runId, lastSeq - 1, 1);
  return last !== undefined && isTerminalEventType(last.type);
}
