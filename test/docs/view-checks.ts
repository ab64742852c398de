import { PROMETHEUS_SERIES, TARGET_LABELS, type CatalogSeries } from './metric-catalog.ts';
import { promqlReferences } from './promql-references.ts';

type Catalog = ReadonlyMap<string, CatalogSeries>;

const COUNTED: ReadonlySet<CatalogSeries['type']> = new Set(['COUNTER', 'HISTOGRAM', 'SUMMARY']);

function seriesOf(catalog: Catalog, metric: string): CatalogSeries | undefined {
  return catalog.get(metric) ?? PROMETHEUS_SERIES.get(metric);
}

function hasLabel(series: CatalogSeries, label: string): boolean {
  return series.labels.has(label) || TARGET_LABELS.has(label);
}

/** Why `metric` is no series of the catalog: the family it was probably meant for, when there is one. */
function unknownMetric(catalog: Catalog, metric: string): string {
  const base = metric.replace(/_(bucket|sum|count|total)$/, '');
  const near = [...catalog.values()].find((series) => series.family === base || series.family === metric);
  if (!near) return `${metric} is no metric the service exports`;
  const names = [...catalog.entries()]
    .filter(([, series]) => series.family === near.family)
    .map(([name]) => name);
  return `${metric}: ${near.family} is a ${near.type.toLowerCase()}, whose series are ${names.join(', ')}`;
}

/**
 * What is wrong with a PromQL expression over the service's metrics: a syntax error, a metric or a
 * suffix the service does not export, a label a selector or a grouping names that its metric does not
 * carry, a counter read without `rate`/`increase` (or a gauge with), a `histogram_quantile` whose
 * aggregation drops `le`. `valuesRead: false` is for a query that reads series, not values
 * (Grafana's `label_values`): a counter needs no `rate` there.
 */
export function expressionProblems(
  expression: string,
  catalog: Catalog,
  { valuesRead = true }: { valuesRead?: boolean } = {},
): string[] {
  const references = promqlReferences(expression);
  const problems = references.syntaxErrors.map((error) => `syntax error ${error}`);
  for (const selector of references.selectors) {
    const series = seriesOf(catalog, selector.metric);
    if (!series) {
      problems.push(
        selector.metric === '' ? 'a selector without a metric name' : unknownMetric(catalog, selector.metric),
      );
      continue;
    }
    for (const label of selector.labels) {
      if (!hasLabel(series, label)) problems.push(`${selector.metric} has no label ${label}`);
    }
    if (!valuesRead) continue;
    if (COUNTED.has(series.type) && !selector.underRate)
      problems.push(
        `${selector.metric} is a ${series.type.toLowerCase()} series: read it through rate() or increase()`,
      );
    if (series.type === 'GAUGE' && selector.underRate)
      problems.push(`${selector.metric} is a gauge: rate() and increase() are for counters`);
  }
  for (const grouping of references.groupings) {
    for (const metric of new Set(grouping.metrics)) {
      const series = seriesOf(catalog, metric);
      if (!series) continue;
      for (const label of grouping.labels) {
        if (!hasLabel(series, label)) problems.push(`${grouping.clause}: ${metric} has no label ${label}`);
      }
    }
  }
  for (const call of references.quantilesWithoutLe)
    problems.push(`histogram_quantile without le kept: ${call}`);
  return problems;
}

/**
 * The labels an expression's result can carry: those its groupings keep, and those of the selectors
 * no aggregation encloses (with the target's).
 */
export function resultLabels(expression: string, catalog: Catalog): Set<string> {
  const references = promqlReferences(expression);
  const labels = new Set(references.groupings.flatMap((grouping) => grouping.labels));
  for (const selector of references.selectors) {
    if (selector.aggregated) continue;
    for (const label of [...(seriesOf(catalog, selector.metric)?.labels ?? []), ...TARGET_LABELS])
      labels.add(label);
  }
  return labels;
}

const GRAFANA_INTERVALS = new Set(['__rate_interval', '__interval', '__range']);

/**
 * A dashboard query as Grafana sends it to Prometheus: its interval variables become a duration and
 * the dashboard's own variables `.*` (every one is multi-valued, so it stands in a regex matcher).
 * Throws on a variable the dashboard does not define.
 */
export function grafanaInterpolated(query: string, variables: ReadonlySet<string>): string {
  return query.replace(
    /\$\{(\w+)(?::\w+)?\}|\$(\w+)/g,
    (whole, braced: string | undefined, bare: string | undefined) => {
      const name = braced ?? bare ?? '';
      if (GRAFANA_INTERVALS.has(name)) return '5m';
      if (variables.has(name)) return '.*';
      throw new Error(`${whole} is no variable of the dashboard: ${query}`);
    },
  );
}
