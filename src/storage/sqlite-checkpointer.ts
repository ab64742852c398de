import { Worker } from 'node:worker_threads';

/** How often the WAL is folded back into the database file. */
const DEFAULT_CHECKPOINT_INTERVAL_MS = 1000;

const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // A busy database: the next tick tries again.
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  try { db.pragma('wal_checkpoint(TRUNCATE)'); } catch {}
  db.close();
  parentPort.postMessage('closed');
});
`;

/**
 * SQLite's automatic checkpoint runs inside a commit, on the event loop, and
 * is what made the p99 of event appends jump. The service turns it off and
 * checkpoints from this thread instead, on its own connection (PASSIVE: it
 * never blocks writers).
 */
export class SqliteCheckpointer {
  readonly #worker: Worker;

  constructor(path: string, driverPath: string, intervalMs = DEFAULT_CHECKPOINT_INTERVAL_MS) {
    this.#worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: { path, driver: driverPath, intervalMs },
    });
    this.#worker.unref();
  }

  #closing: Promise<void> | undefined;

  /** Final checkpoint, then the thread ends; a second call waits for the first. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      this.#worker.once('message', () => resolve());
      this.#worker.once('exit', () => resolve());
    });
    this.#worker.postMessage('close');
    await closed;
    await this.#worker.terminate();
  }
}
