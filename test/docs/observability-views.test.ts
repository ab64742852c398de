import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { answerJson, startHttpToolServer, type HttpToolServer } from '../support/http-tool-server.ts';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { bearer, createWorkspaceWithKey } from '../support/test-server.ts';
import { eventually } from '../support/waits.ts';
import { REPO } from './markdown.ts';
import { metricCatalog, specTableLabels, type CatalogSeries } from './metric-catalog.ts';
import { expressionProblems, grafanaInterpolated, resultLabels } from './view-checks.ts';

const DASHBOARD = 'docs/observability/grafana-dashboard.json';
const ALERT_RULES = 'docs/observability/alert-rules.yml';
const LOOPBACK = { AGENT_RUNS_FETCH_ALLOW: '127.0.0.0/8,::1/128' };
/** Exported at 0 until the feature is built (operations.md): no sample shows their labels yet. */
const UNBUILT = ['agent_runs_webhook_deliveries_total'];

interface Panel {
  id?: unknown;
  type?: unknown;
  title?: unknown;
  gridPos?: { x?: unknown; y?: unknown; w?: unknown; h?: unknown };
  datasource?: { uid?: unknown };
  targets?: Array<{ expr?: unknown; refId?: unknown; datasource?: { uid?: unknown } }>;
  panels?: Panel[];
}
interface Dashboard {
  title?: unknown;
  uid?: unknown;
  schemaVersion?: unknown;
  __inputs?: Array<{ name?: unknown; type?: unknown; pluginId?: unknown }>;
  panels?: Panel[];
  templating?: {
    list?: Array<{ name?: unknown; type?: unknown; query?: unknown; datasource?: { uid?: unknown } }>;
  };
}
interface AlertRule {
  alert?: unknown;
  expr?: unknown;
  for?: unknown;
  labels?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

const dashboard = JSON.parse(readFileSync(join(REPO, DASHBOARD), 'utf8')) as Dashboard;
const rules = parseYaml(readFileSync(join(REPO, ALERT_RULES), 'utf8')) as {
  groups?: Array<{ name?: unknown; rules?: AlertRule[] }>;
};

/** Every panel, those inside collapsed rows too. */
function allPanels(panels: Panel[] = dashboard.panels ?? []): Panel[] {
  return panels.flatMap((panel) => [panel, ...allPanels(panel.panels ?? [])]);
}
const variables = new Set((dashboard.templating?.list ?? []).map((variable) => String(variable.name)));
const variableQuery = (query: unknown) =>
  typeof query === 'string' ? query : String((query as { query?: unknown } | undefined)?.query);

/** Each PromQL expression of the dashboard, named by where it stands, as Grafana sends it. */
function dashboardExpressions(): Array<{ where: string; expr: string; valuesRead: boolean }> {
  const expressions: Array<{ where: string; expr: string; valuesRead: boolean }> = [];
  for (const panel of allPanels()) {
    for (const target of panel.targets ?? []) {
      const where = `panel "${String(panel.title)}" ${String(target.refId)}`;
      expressions.push({
        where,
        expr: grafanaInterpolated(String(target.expr), variables),
        valuesRead: true,
      });
    }
  }
  for (const variable of dashboard.templating?.list ?? []) {
    if (variable.type !== 'query') continue;
    const query = variableQuery(variable.query);
    const labelValues = /^label_values\((.+),\s*(\w+)\)$/.exec(query);
    assert.ok(labelValues, `variable ${String(variable.name)}: label_values(selector, label), not ${query}`);
    const [, selector = '', label = ''] = labelValues;
    const where = `variable ${String(variable.name)}`;
    // label_values(selector, label) reads `label` from the selector's series.
    expressions.push({
      where,
      expr: `group by (${label}) (${grafanaInterpolated(selector, variables)})`,
      valuesRead: false,
    });
  }
  return expressions;
}

const alertRules = (): AlertRule[] => (rules.groups ?? []).flatMap((group) => group.rules ?? []);

describe(
  'the ready-made views (docs/observability) against the metrics the service exports',
  { timeout: 120_000 },
  () => {
    let fixture: RunFixture;
    let tools: HttpToolServer;
    /** The series of every process's scrape (API and, in scale-out, the worker), after a run of each kind of count. */
    let catalog: Map<string, CatalogSeries>;

    before(async () => {
      tools = await startHttpToolServer();
      fixture = await startRunFixture('openai-chat', { env: { ...LOOPBACK, AGENT_RUNS_METRICS_PORT: '0' } });
      const { server } = fixture;
      const executing = server.workerMetricsUrl ?? server.managementUrl;
      assert.ok(executing, 'AGENT_RUNS_METRICS_PORT opens a management listener');
      const scrapeApi = async () => {
        const response = await fetch(`${server.baseUrl}/metrics`, { headers: bearer(server.adminToken) });
        assert.equal(response.status, 200);
        return response.text();
      };
      const scrapeWorker = async () => (await fetch(`${executing}/metrics`)).text();

      // A run with a tool call gives every labelled run, model, token and tool metric a sample.
      tools.route('/weather', answerJson({ forecast: 'sunny' }));
      const tool = await server.admin('POST', `/workspaces/${fixture.slug}/tools`, {
        name: 'weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        http: { url: tools.url('/weather'), method: 'POST' },
      });
      assert.equal(tool.status, 201, JSON.stringify(tool.body));
      fixture.fake.enqueue(
        {
          toolCalls: [{ id: 'call_w', name: 'weather', input: { city: 'Paris' } }],
          usage: { inputTokens: 11, outputTokens: 7 },
        },
        { text: ['Sunny.'], usage: { inputTokens: 13, outputTokens: 5, cachedTokens: 3 } },
      );
      await fixture.runToEnd({
        systemPrompt: 's',
        prompt: 'weather?',
        tools: [{ kind: 'svc', id: tool.body.id }],
      });
      await eventually(
        async () => (await scrapeWorker()).includes('agent_runs_runs_finished_total{'),
        'the finished run is counted',
      );
      // A 429 gives the rate-limit counter its sample.
      const tight = await createWorkspaceWithKey(server, 'tight', {
        rateLimits: { runStart: 1, lifecycle: 100, otherMutations: 100 },
      });
      let refused = 0;
      for (let attempt = 0; attempt < 2; attempt++) {
        const response = await server.request('POST', `${tight.ws}/agent-runs`, {
          body: {},
          headers: bearer(tight.key),
        });
        if (response.status === 429) refused++;
      }
      assert.equal(refused, 1);
      const scrapes = [await scrapeApi()];
      if (server.workerMetricsUrl) scrapes.push(await scrapeWorker());
      catalog = metricCatalog(scrapes);
    });
    after(async () => {
      await fixture?.close();
      await tools?.close();
    });

    it('the scrapes hold every metric of the spec table, labelled as the table says; only unbuilt counters have no sample', () => {
      const table = specTableLabels();
      assert.equal(table.size, 17, 'the table of extensions §2 is read whole');
      for (const [family, labels] of table) {
        const series = [...catalog.values()].filter((entry) => entry.family === family);
        assert.ok(series.length > 0, `${family} is exported`);
        for (const entry of series) {
          const own = [...entry.labels].filter((label) => label !== 'le').sort();
          assert.deepEqual(own, [...labels].sort(), `${family}'s labels`);
        }
      }
      const fromSpec = new Set(
        [...catalog.values()].filter((entry) => entry.labelsFromSpec).map((entry) => entry.family),
      );
      assert.deepEqual([...fromSpec].sort(), UNBUILT);
    });

    it('the checker finds what the views could get wrong (it is not vacuous)', () => {
      const problems = (expr: string) => expressionProblems(expr, catalog);
      assert.deepEqual(problems('sum by (workspace) (rate(agent_runs_runs_created_total[5m]))'), []);
      assert.match(problems('sum(rate(agent_runs_runs_created_total_bucket[5m]))').join(), /is a counter/);
      assert.match(problems('sum(rate(agent_runs_run_queue_wait_seconds[5m]))').join(), /is a histogram/);
      assert.match(
        problems('sum(rate(agent_runs_no_such_total[5m]))').join(),
        /no metric the service exports/,
      );
      assert.match(
        problems('sum by (provider) (rate(agent_runs_runs_created_total[5m]))').join(),
        /has no label provider/,
      );
      assert.match(
        problems('rate(agent_runs_tokens_total{workspace="acme"}[5m])').join(),
        /has no label workspace/,
      );
      assert.match(problems('sum(agent_runs_runs_created_total)').join(), /through rate\(\)/);
      assert.match(problems('rate(agent_runs_runs_executing[5m])').join(), /is a gauge/);
      assert.match(
        problems(
          'histogram_quantile(0.9, sum by (provider) (rate(agent_runs_model_call_duration_seconds_bucket[5m])))',
        ).join(),
        /without le/,
      );
      assert.match(problems('sum(rate(agent_runs_runs_created_total[5m])').join(), /syntax error/);
      assert.throws(
        () => grafanaInterpolated('x{workspace=~"$tenant"}', variables),
        /no variable of the dashboard/,
      );
    });

    it('the dashboard is importable: a Prometheus datasource input, unique panel ids, grid positions, targets with expr and refId', () => {
      assert.equal(typeof dashboard.title, 'string');
      assert.equal(typeof dashboard.uid, 'string');
      assert.ok(
        typeof dashboard.schemaVersion === 'number' && dashboard.schemaVersion >= 36,
        'a current schemaVersion',
      );
      assert.ok(
        dashboard.__inputs?.some(
          (input) =>
            input.name === 'DS_PROMETHEUS' && input.type === 'datasource' && input.pluginId === 'prometheus',
        ),
        'the ${DS_PROMETHEUS} input Grafana asks for on import',
      );
      const panels = allPanels();
      const ids = panels.map((panel) => panel.id);
      assert.ok(
        ids.every((id) => Number.isInteger(id)),
        'integer panel ids',
      );
      assert.equal(new Set(ids).size, ids.length, 'unique panel ids');
      const boxes: Array<{ title: string; x: number; y: number; w: number; h: number }> = [];
      for (const panel of panels) {
        const title = String(panel.title);
        const { x, y, w, h } = panel.gridPos ?? {};
        assert.ok(
          [x, y, w, h].every((value) => Number.isInteger(value)),
          `${title}: gridPos x, y, w, h`,
        );
        const box = { title, x: Number(x), y: Number(y), w: Number(w), h: Number(h) };
        assert.ok(
          box.x >= 0 && box.w > 0 && box.h > 0 && box.x + box.w <= 24,
          `${title}: within the 24 columns`,
        );
        for (const other of boxes) {
          const overlaps =
            box.x < other.x + other.w &&
            other.x < box.x + box.w &&
            box.y < other.y + other.h &&
            other.y < box.y + box.h;
          assert.ok(!overlaps, `${title} overlaps ${other.title}`);
        }
        boxes.push(box);
        if (panel.type === 'row') continue;
        assert.ok(typeof panel.type === 'string', `${title}: a panel type`);
        assert.equal(panel.datasource?.uid, '${DS_PROMETHEUS}', `${title}: the imported datasource`);
        const targets = panel.targets ?? [];
        assert.ok(targets.length > 0, `${title}: targets`);
        const refIds = targets.map((target) => target.refId);
        assert.equal(new Set(refIds).size, refIds.length, `${title}: unique refIds`);
        for (const target of targets) {
          assert.ok(typeof target.expr === 'string' && target.expr !== '', `${title}: an expr`);
          assert.ok(typeof target.refId === 'string' && target.refId !== '', `${title}: a refId`);
          assert.equal(target.datasource?.uid, '${DS_PROMETHEUS}', `${title}: the imported datasource`);
        }
      }
      const workspace = dashboard.templating?.list?.find((variable) => variable.name === 'workspace');
      assert.match(
        variableQuery(workspace?.query),
        /^label_values\(agent_runs_runs_created_total\b.*, workspace\)$/,
      );
    });

    it('every dashboard query and template variable parses and names only metrics, suffixes and labels the service exports', () => {
      const problems = dashboardExpressions().flatMap(({ where, expr, valuesRead }) =>
        expressionProblems(expr, catalog, { valuesRead }).map((problem) => `${where}: ${problem}`),
      );
      assert.deepEqual(problems, []);
    });

    it('every agent_runs metric the service exports has a panel of the dashboard', () => {
      const shown = new Set(
        dashboardExpressions().flatMap(({ expr }) =>
          [...catalog.entries()]
            .filter(([name]) => new RegExp(`\\b${name}\\b`).test(expr))
            .map(([, series]) => series.family),
        ),
      );
      const families = new Set(
        [...catalog.values()].map((series) => series.family).filter((name) => name.startsWith('agent_runs_')),
      );
      assert.deepEqual(
        [...families].filter((family) => !shown.has(family)),
        [],
      );
    });

    it('the alert rules are a Prometheus rules file: named groups; rules with alert, expr, for, a severity, a summary and a description', () => {
      assert.ok(Array.isArray(rules.groups) && rules.groups.length > 0, 'groups');
      const names = new Set<string>();
      for (const group of rules.groups) {
        assert.ok(typeof group.name === 'string' && group.name !== '', 'a group name');
        assert.ok(Array.isArray(group.rules) && group.rules.length > 0, `${group.name}: rules`);
      }
      for (const rule of alertRules()) {
        const alert = String(rule.alert);
        assert.match(alert, /^[A-Za-z_][A-Za-z0-9_]*$/, 'an alert name');
        assert.ok(!names.has(alert), `${alert} is unique`);
        names.add(alert);
        assert.ok(typeof rule.expr === 'string' && rule.expr.trim() !== '', `${alert}: expr`);
        assert.match(String(rule.for), /^(\d+(ms|s|m|h|d|w|y))+$/, `${alert}: for, a Prometheus duration`);
        assert.ok(
          ['critical', 'warning', 'info'].includes(String(rule.labels?.severity)),
          `${alert}: labels.severity`,
        );
        for (const annotation of ['summary', 'description']) {
          const text = rule.annotations?.[annotation];
          assert.ok(
            typeof text === 'string' && text.trim().length > 10,
            `${alert}: annotations.${annotation}`,
          );
        }
      }
    });

    it('every alert expression parses and names only metrics, suffixes and labels the service exports; annotations name only labels the alert keeps', () => {
      const problems: string[] = [];
      for (const rule of alertRules()) {
        const expr = String(rule.expr);
        problems.push(
          ...expressionProblems(expr, catalog).map((problem) => `${String(rule.alert)}: ${problem}`),
        );
        const kept = resultLabels(expr, catalog);
        for (const text of Object.values(rule.annotations ?? {})) {
          for (const [, label = ''] of String(text).matchAll(/\$labels\.(\w+)/g)) {
            if (!kept.has(label))
              problems.push(
                `${String(rule.alert)}: the annotation names $labels.${label}, which the expression drops`,
              );
          }
        }
      }
      assert.deepEqual(problems, []);
    });
  },
);
