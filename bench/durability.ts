import SQLite from 'better-sqlite3';
import type { DurabilityCheck } from './report.ts';

/**
 * After the service stopped: every run the bench started is in the database and
 * succeeded, and the event log holds exactly the frames the clients were streamed
 * (every stream was read from seq 1 to its terminal event).
 */
export function checkDurability(
  databasePath: string,
  runsStarted: number,
  framesSeen: number,
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
    return {
      runsCreated,
      runsSucceeded,
      eventsInLog,
      framesSeen,
      pass: runsCreated === runsStarted && runsSucceeded === runsCreated && eventsInLog === framesSeen,
    };
  } finally {
    db.close();
  }
}
