import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { REPO } from './markdown.ts';
import { promqlReferences } from './promql-references.ts';

/** One series name a query can select (`x_total`, `x_bucket`, `x_sum`, …), and the labels it carries. */
export interface CatalogSeries {
  family: string;
  type: PrometheusFamily['type'];
  labels: Set<string>;
  /** Its labels come from the spec's table: the scrapes held no sample of its family. */
  labelsFromSpec: boolean;
}

/** Labels Prometheus attaches to every series it scrapes (the target's). */
export const TARGET_LABELS: ReadonlySet<string> = new Set(['instance', 'job']);

/** Series Prometheus itself records for every target, which no process exports. */
export const PROMETHEUS_SERIES: ReadonlyMap<string, CatalogSeries> = new Map([
  ['up', { family: 'up', type: 'GAUGE', labels: new Set<string>(), labelsFromSpec: false }],
]);

const SUFFIXES: Record<PrometheusFamily['type'], string[]> = {
  COUNTER: [''],
  GAUGE: [''],
  UNTYPED: [''],
  HISTOGRAM: ['_bucket', '_sum', '_count'],
  SUMMARY: ['', '_sum', '_count'],
};

/**
 * Every series name the scraped exposition texts can hold, by family and type (from the `# TYPE`
 * lines), with the label names of their samples; read with Prometheus's own selector grammar, since a
 * sample's series (`name{label="…"}`) is a PromQL selector. A family with no sample (a labelled
 * counter nothing has counted) takes its labels from the spec's metrics table (extensions §2).
 */
export function metricCatalog(expositions: string[]): Map<string, CatalogSeries> {
  const catalog = new Map<string, CatalogSeries>();
  const specLabels = specTableLabels();
  for (const exposition of expositions) {
    for (const family of parsePrometheusTextFormat(exposition)) {
      for (const suffix of SUFFIXES[family.type]) {
        const name = family.name + suffix;
        if (!catalog.has(name))
          catalog.set(name, {
            family: family.name,
            type: family.type,
            labels: new Set(),
            labelsFromSpec: false,
          });
      }
    }
  }
  const observed = new Set<string>();
  for (const exposition of expositions) {
    for (const line of exposition.split('\n')) {
      if (line === '' || line.startsWith('#')) continue;
      const series = line.includes('{') ? line.slice(0, line.lastIndexOf('}') + 1) : line.split(' ')[0];
      const [selector] = promqlReferences(series ?? '').selectors;
      const entry = selector && catalog.get(selector.metric);
      if (!selector || !entry) throw new Error(`a sample of no declared family: ${line}`);
      for (const label of selector.labels) entry.labels.add(label);
      observed.add(entry.family);
    }
  }
  for (const entry of catalog.values()) {
    if (observed.has(entry.family)) continue;
    const labels = specLabels.get(entry.family);
    if (labels === undefined || labels.length === 0) continue;
    for (const label of labels) entry.labels.add(label);
    entry.labelsFromSpec = true;
  }
  return catalog;
}

/** The label names of each metric of extensions §2's table (`le` aside), from the spec copy in docs/. */
export function specTableLabels(): Map<string, string[]> {
  const spec = readFileSync(join(REPO, 'docs/spec/agent-runs-extensions.md'), 'utf8');
  const table = new Map<string, string[]>();
  for (const [, name, labels] of spec.matchAll(/^\| `(agent_runs_\w+)` \| \w+ \| (.*) \|$/gm)) {
    if (name === undefined || labels === undefined) continue;
    const withoutValues = labels.replace(/\([^)]*\)/g, '');
    table.set(
      name,
      [...withoutValues.matchAll(/`(\w+)`/g)].map(([, label]) => label ?? ''),
    );
  }
  return table;
}
