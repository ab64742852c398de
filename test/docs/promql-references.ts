import { parser } from '@prometheus-io/lezer-promql';

type SyntaxNode = ReturnType<typeof parser.parse>['topNode'];

/** One series selector of an expression (`name{label="…"}`), and where it stands. */
export interface SelectorReference {
  metric: string;
  /** The label names its matchers test. */
  labels: string[];
  /** Its range is the argument of `rate`, `irate` or `increase` (where a counter belongs). */
  underRate: boolean;
  /** An aggregation (`sum`, `max`, …) encloses it: its own labels do not reach the result. */
  aggregated: boolean;
}

/** The labels of a `by (…)`/`without (…)`, `on (…)`/`ignoring (…)` or `group_left (…)` clause, and the selectors they apply to. */
export interface GroupingReference {
  clause: string;
  labels: string[];
  metrics: string[];
}

export interface PromqlReferences {
  selectors: SelectorReference[];
  groupings: GroupingReference[];
  /** `histogram_quantile` calls whose aggregation does not keep `le`, as text. */
  quantilesWithoutLe: string[];
  /** Syntax errors, as the text around each. */
  syntaxErrors: string[];
}

const RATE_FUNCTIONS = new Set(['Rate', 'Irate', 'Increase']);

/** What a PromQL expression names, read from the syntax tree of Prometheus's own grammar. */
export function promqlReferences(expression: string): PromqlReferences {
  const tree = parser.parse(expression);
  const text = (node: SyntaxNode) => expression.slice(node.from, node.to);
  const found: PromqlReferences = { selectors: [], groupings: [], quantilesWithoutLe: [], syntaxErrors: [] };
  const labelNames = (clause: SyntaxNode) =>
    descendants(clause, (node) => node.name === 'LabelName').map(text);
  const selectorMetrics = (scope: SyntaxNode) =>
    descendants(scope, (node) => node.name === 'VectorSelector').map((node) => metricOf(node, text));

  tree.iterate({
    enter: (ref) => {
      const node = ref.node;
      if (node.type.isError) {
        found.syntaxErrors.push(
          `at ${node.from}: «${expression.slice(Math.max(0, node.from - 20), node.to + 20)}»`,
        );
      } else if (node.name === 'VectorSelector') {
        const matchers = descendants(node, (child) => /LabelMatcher$/.test(child.name));
        found.selectors.push({
          metric: metricOf(node, text),
          labels: matchers
            .map((matcher) => {
              const name = matcher.firstChild;
              if (!name) return '';
              return name.name === 'QuotedLabelName' ? (JSON.parse(text(name)) as string) : text(name);
            })
            .filter((label) => label !== '__name__'),
          underRate: isRateArgument(node),
          aggregated: ancestors(node).some((parent) => parent.name === 'AggregateExpr'),
        });
      } else if (node.name === 'AggregateModifier') {
        found.groupings.push({
          clause: text(node),
          labels: labelNames(node),
          metrics: node.parent ? selectorMetrics(node.parent) : [],
        });
      } else if (node.name === 'MatchingModifierClause') {
        found.groupings.push({
          clause: text(node),
          labels: labelNames(node),
          metrics: node.parent ? selectorMetrics(node.parent) : [],
        });
      } else if (
        node.name === 'FunctionCall' &&
        node.getChild('FunctionIdentifier')?.firstChild?.name === 'HistogramQuantile'
      ) {
        const aggregations = descendants(node, (child) => child.name === 'AggregateModifier');
        if (!aggregations.some((modifier) => modifier.getChild('By') && labelNames(modifier).includes('le')))
          found.quantilesWithoutLe.push(text(node));
      }
    },
  });
  return found;
}

/** The metric a selector names: its identifier, else its `__name__` matcher's value (`''` when it has neither). */
function metricOf(selector: SyntaxNode, text: (node: SyntaxNode) => string): string {
  const identifier = selector.getChild('Identifier');
  if (identifier) return text(identifier);
  for (const matcher of descendants(selector, (node) => node.name === 'UnquotedLabelMatcher')) {
    const name = matcher.getChild('LabelName');
    const value = matcher.getChild('StringLiteral');
    if (name && value && text(name) === '__name__') return JSON.parse(text(value)) as string;
  }
  return '';
}

function isRateArgument(selector: SyntaxNode): boolean {
  const range = selector.parent;
  if (range?.name !== 'MatrixSelector') return false;
  const call = range.parent?.parent;
  const name =
    call?.name === 'FunctionCall' ? call.getChild('FunctionIdentifier')?.firstChild?.name : undefined;
  return name !== undefined && RATE_FUNCTIONS.has(name);
}

function descendants(node: SyntaxNode, keep: (node: SyntaxNode) => boolean): SyntaxNode[] {
  const kept: SyntaxNode[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (keep(child)) kept.push(child);
    kept.push(...descendants(child, keep));
  }
  return kept;
}

function ancestors(node: SyntaxNode): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  for (let parent = node.parent; parent; parent = parent.parent) found.push(parent);
  return found;
}
