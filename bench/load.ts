export interface LoadResult<T> {
  samples: T[];
  errors: string[];
  wallMs: number;
}

/**
 * Closed-loop load: `concurrency` clients, each starting its next run as soon
 * as its previous one ends, until `total` runs have been started.
 */
export async function runLoad<T>(
  concurrency: number,
  total: number,
  task: (index: number) => Promise<T>,
): Promise<LoadResult<T>> {
  const samples: T[] = [];
  const errors: string[] = [];
  let next = 0;
  const client = async () => {
    while (next < total) {
      const index = next++;
      try {
        samples.push(await task(index));
      } catch (error) {
        errors.push(error instanceof Error ? error.message : String(error));
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, client));
  return { samples, errors, wallMs: performance.now() - started };
}
