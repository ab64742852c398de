import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How long a test waits for something it expects before failing. A wait ends as soon as the awaited
 * event comes; the cap only turns a hang into a failure, so it is far above what a slow or loaded
 * one-core machine needs.
 */
export const WAIT_CAP_MS = 60_000;

/** Settles like `promise`, or rejects with `describeTimeout()` if it has not settled within `timeoutMs`. */
export function withCap<T>(
  promise: Promise<T>,
  timeoutMs: number,
  describeTimeout: () => string,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(describeTimeout())), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Checks `check` until it holds, for state that announces no event of its own (a row read over
 * HTTP, a file's size, a process's liveness); anything that has an event is awaited on it instead.
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  { timeoutMs = WAIT_CAP_MS, intervalMs = 10 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await sleep(intervalMs);
  }
}

/** A promise and the function that resolves it, for a test to release something at a moment it picks. */
export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve: (value: T) => void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}
