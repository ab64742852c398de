/** Quantile of an ascending-sorted sample with linear interpolation between ranks (NaN when empty). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  const lowValue = sorted[low] as number;
  const highValue = sorted[high] as number;
  return lowValue + (highValue - lowValue) * (position - low);
}

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
  };
}

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes of one machine. */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}
