import assert from 'node:assert/strict';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';

/** A scrape: the parsed families, and the text (for histograms, whose labels the parser drops). */
export interface Scrape {
  families: PrometheusFamily[];
  text: string;
}

export type Labels = Record<string, string>;

export function parsed(text: string): Scrape {
  return { families: parsePrometheusTextFormat(text), text };
}

/** GET `{url}/metrics` (with `headers`), which must answer 200, parsed. */
export async function scrape(baseUrl: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const response = await fetch(`${baseUrl}/metrics`, { headers });
  assert.equal(response.status, 200, `${baseUrl}/metrics`);
  return parsed(await response.text());
}

/**
 * The value of one counter or gauge sample, or a histogram's `_count` for these labels: 0 when the
 * series does not exist yet. parse-prometheus-text-format 1.1.1 keeps only the buckets of a labelled
 * histogram, so a histogram's count is read from its `_count` line of the text.
 */
export function sample(scraped: Scrape, name: string, labels: Labels = {}): number {
  const family = scraped.families.find((entry) => entry.name === name);
  assert.ok(family, `${name} is exported`);
  if (family.type === 'HISTOGRAM') return seriesValue(scraped, `${name}_count`, labels);
  const found = family.metrics.find((metric) => matches(metric.labels ?? {}, labels));
  return found ? Number(found.value) : 0;
}

/**
 * One series of the text by its full name (a histogram's `_sum`, `_count` or `_bucket` with its `le`):
 * the first line whose labels include these, 0 when there is none.
 */
export function seriesValue(scraped: Scrape, series: string, labels: Labels = {}): number {
  for (const line of scraped.text.split('\n')) {
    const found = new RegExp(`^${series}(?:\\{(.*)\\})? (\\S+)$`).exec(line);
    if (!found) continue;
    const lineLabels = Object.fromEntries(
      [...(found[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map(([, label, value]) => [label, value]),
    );
    if (matches(lineLabels, labels)) return Number(found[2]);
  }
  return 0;
}

function matches(found: Labels, wanted: Labels): boolean {
  return Object.entries(wanted).every(([label, value]) => found[label] === value);
}

/** How much a sample moved from `before` to `after`. */
export function moved(before: Scrape, after: Scrape, name: string, labels: Labels = {}): number {
  return sample(after, name, labels) - sample(before, name, labels);
}

/** How much a series of the text (a histogram's `_sum` or `_bucket`) moved from `before` to `after`. */
export function seriesMoved(before: Scrape, after: Scrape, series: string, labels: Labels = {}): number {
  return seriesValue(after, series, labels) - seriesValue(before, series, labels);
}

/** How much a sample moved, summed over several processes' scrapes taken before and after (same order). */
export function movedInAll(
  before: readonly Scrape[],
  after: readonly Scrape[],
  name: string,
  labels: Labels = {},
): number {
  assert.equal(before.length, after.length);
  return before.reduce((sum, scraped, index) => sum + moved(scraped, after[index]!, name, labels), 0);
}
