import SQLite from 'better-sqlite3';
import type { RunGroup } from './measure.ts';
import type { DurabilityCheck } from './report.ts';

/**
 * After the service stopped: every run the bench started is in the database and
 * succeeded, and the event log holds exactly the frames the clients were streamed
 * (every stream was read from seq 1 to its terminal event) — for the whole bench,
 * and run by run for each group of runs (a level with its warm-up wave).
 */
export function checkDurability(
  databasePath: string,
  runsStarted: number,
  framesSeen: number,
  groups: readonly RunGroup[] = [],
): DurabilityCheck {
  const db = new SQLite(databasePath, { readonly: true, fileMustExist: true });
  try {
    const statuses = db.prepare('select status, count(*) as n from runs group by status').all() as {
      status: string;
      n: number;
    }[];
    const eventsInLog = (db.prepare('select count(*) as n from run_events').get() as { n: number }).n;
    const runsCreated = statuses.reduce((sum, row) => sum + row.n, 0);
    const runsSucceeded = statuses.find((row) => row.status === 'succeeded')?.n ?? 0;
    const statusOf = new Map(
      (db.prepare('select id, status from runs').all() as { id: string; status: string }[]).map((row) => [
        row.id,
        row.status,
      ]),
    );
    const eventsOf = new Map(
      (
        db.prepare('select run_id, count(*) as n from run_events group by run_id').all() as {
          run_id: string;
          n: number;
        }[]
      ).map((row) => [row.run_id, row.n]),
    );
    return compareWithLog(
      { runsCreated, runsSucceeded, eventsInLog, statusOf, eventsOf },
      runsStarted,
      framesSeen,
      groups,
    );
  } finally {
    db.close();
  }
}

/** What the event log holds: runs by status and events by run. */
export interface LoggedRuns {
  runsCreated: number;
  runsSucceeded: number;
  eventsInLog: number;
  statusOf: ReadonlyMap<string, string>;
  eventsOf: ReadonlyMap<string, number>;
}

/** The runs the bench started and the frames their clients saw, against what the log holds (any engine). */
export function compareWithLog(
  log: LoggedRuns,
  runsStarted: number,
  framesSeen: number,
  groups: readonly RunGroup[],
): DurabilityCheck {
  const { runsCreated, runsSucceeded, eventsInLog, statusOf, eventsOf } = log;
  const byGroup = groups.map(({ label, runs }) => {
    let created = 0;
    let succeeded = 0;
    let streamedToEnd = 0;
    let events = 0;
    let frames = 0;
    let mismatched = 0;
    for (const run of runs) {
      frames += run.frames;
      if (run.complete) streamedToEnd++;
      if (run.runId === undefined) continue;
      if (statusOf.has(run.runId)) created++;
      if (statusOf.get(run.runId) === 'succeeded') succeeded++;
      const logged = eventsOf.get(run.runId) ?? 0;
      events += logged;
      if (logged !== run.frames) mismatched++;
    }
    const started = runs.length;
    return {
      label,
      started,
      created,
      succeeded,
      streamedToEnd,
      eventsInLog: events,
      framesSeen: frames,
      mismatchedRuns: mismatched,
      pass: created === started && succeeded === started && streamedToEnd === started && mismatched === 0,
    };
  });
  return {
    runsCreated,
    runsSucceeded,
    eventsInLog,
    framesSeen,
    groups: byGroup,
    pass:
      runsCreated === runsStarted &&
      runsSucceeded === runsCreated &&
      eventsInLog === framesSeen &&
      byGroup.every((group) => group.pass),
  };
}
