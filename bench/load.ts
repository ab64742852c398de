import { setTimeout as sleep } from 'node:timers/promises';
import { failureKind, type FailureKind } from './clients.ts';

export interface LoadFailure {
  kind: FailureKind;
  message: string;
}

export interface LoadResult<T> {
  samples: T[];
  errors: LoadFailure[];
  wallMs: number;
}

/**
 * Closed-loop load: `concurrency` clients, each starting its next run as soon
 * as its previous one ends, until `total` runs have been started. With
 * `spreadMs`, client i starts its first run i/concurrency of `spreadMs` late:
 * spread over one run's duration, the clients then stay evenly out of step (a
 * steady state); without it they all start together and, every run taking
 * the same time, keep starting in waves of `concurrency`.
 */
export async function runLoad<T>(
  concurrency: number,
  total: number,
  task: (index: number) => Promise<T>,
  spreadMs = 0,
): Promise<LoadResult<T>> {
  const samples: T[] = [];
  const errors: LoadFailure[] = [];
  let next = 0;
  const client = async (_: unknown, clientIndex: number) => {
    if (spreadMs > 0) await sleep((clientIndex * spreadMs) / concurrency);
    while (next < total) {
      const index = next++;
      try {
        samples.push(await task(index));
      } catch (error) {
        errors.push({
          kind: failureKind(error),
          message: error instanceof Error ? error.message : String(error),
        });
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, client));
  return { samples, errors, wallMs: performance.now() - started };
}
