/**
 * `node bench/session-list.ts`: `GET {ws}/agent-sessions` latency over HTTP with 100,000 sessions in one
 * workspace (real service, SQLite), bulk-loaded through the service's Kysely handle (`customer` one of
 * 1,000, `channel` one of 5, `tier` one of 3; 10% ended). Queries over 20 ms median get EXPLAIN QUERY PLAN
 * and an in-process EXISTS vs `id IN (SELECT session_id …)` comparison, before and after ANALYZE.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql, type Kysely } from 'kysely';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { newId } from '../src/domain/ids.ts';
import { createService } from '../src/main.ts';
import type { Database } from '../src/storage/schema.ts';
import { seededRandom } from './seeded-random.ts';

const { values: args } = parseArgs({
  options: {
    sessions: { type: 'string', default: '100000' },
    requests: { type: 'string', default: '50' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  console.log('usage: node bench/session-list.ts [--sessions N] [--requests N]');
  process.exit(0);
}
const SESSIONS = Number(args.sessions);
const REQUESTS = Number(args.requests);
const SLOW_MEDIAN_MS = 20;
const CHANNELS = ['web', 'email', 'chat', 'voice', 'api'];
const TIERS = ['free', 'pro', 'enterprise'];
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

async function bulkLoad(db: Kysely<Database>, workspaceId: string, count: number): Promise<void> {
  const next = seededRandom(42);
  const now = Date.now();
  const spec = JSON.stringify({ systemPrompt: 'You are a helpful support assistant.' });
  const BATCH = 1000;
  for (let start = 0; start < count; start += BATCH) {
    const sessions: Database['sessions'][] = [];
    const metadata: Database['session_metadata'][] = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
      const created = now - Math.floor(next() * 90 * 86_400_000);
      const last = Math.min(now, created + Math.floor(next() * 86_400_000));
      const values = {
        customer: `c${Math.floor(next() * 1000)}`,
        channel: CHANNELS[Math.floor(next() * CHANNELS.length)] ?? 'web',
        tier: TIERS[Math.floor(next() * TIERS.length)] ?? 'free',
      };
      const id = newId('session');
      sessions.push({
        id,
        workspace_id: workspaceId,
        api_key_id: null,
        status: next() < 0.1 ? 'ended' : 'active',
        spec,
        metadata: JSON.stringify(values),
        summary: `Question ${i} about order ${Math.floor(next() * 1e6)}`,
        message_count: 2 * Math.floor(next() * 10),
        active_run_id: null,
        created_at: new Date(created).toISOString(),
        last_interaction_at: new Date(last).toISOString(),
      });
      for (const [key, value] of Object.entries(values)) {
        metadata.push({ session_id: id, workspace_id: workspaceId, key, value });
      }
    }
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('sessions').values(sessions).execute();
      await trx.insertInto('session_metadata').values(metadata).execute();
    });
  }
}

interface Scenario {
  name: string;
  query: string;
}

const SCENARIOS: Scenario[] = [
  { name: 'one metadata filter (customer, 1/1000)', query: 'metadata=customer:c42&limit=50' },
  {
    name: 'two filters AND (customer + channel)',
    query: 'metadata=customer:c42&metadata=channel:web&limit=50',
  },
  { name: 'status=active', query: 'status=active&limit=50' },
  { name: 'unfiltered first page', query: '' },
  { name: 'broad filter (channel, 1/5)', query: 'metadata=channel:web&limit=50' },
];

/** The scenario's filters, read from its query string as the route does. */
function filtersOf(scenario: Scenario) {
  const params = new URLSearchParams(scenario.query);
  const metadata = params.getAll('metadata').map((entry): [string, string] => {
    const colon = entry.indexOf(':');
    return [entry.slice(0, colon), entry.slice(colon + 1)];
  });
  return { status: params.get('status'), metadata };
}

/**
 * The two statements SessionRepository.list runs (count and page), built the same way (`exists`), or
 * with each metadata filter as `sessions.id IN (SELECT session_id …)` (`in`), which lets SQLite drive
 * the query from the existing session_metadata_lookup index instead of probing it once per session.
 */
function listQueries(db: Kysely<Database>, workspaceId: string, scenario: Scenario, shape: 'exists' | 'in') {
  const { status, metadata } = filtersOf(scenario);
  let filtered = db.selectFrom('sessions').where('sessions.workspace_id', '=', workspaceId);
  if (status) filtered = filtered.where('sessions.status', '=', status);
  for (const [key, value] of metadata) {
    if (shape === 'in') {
      filtered = filtered.where('sessions.id', 'in', (eb) =>
        eb
          .selectFrom('session_metadata')
          .select('session_metadata.session_id')
          .where('session_metadata.workspace_id', '=', workspaceId)
          .where('session_metadata.key', '=', key)
          .where('session_metadata.value', '=', value),
      );
      continue;
    }
    filtered = filtered.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('session_metadata')
          .select(sql.lit(1).as('one'))
          .where('session_metadata.workspace_id', '=', workspaceId)
          .where('session_metadata.key', '=', key)
          .where('session_metadata.value', '=', value)
          .whereRef('session_metadata.session_id', '=', 'sessions.id'),
      ),
    );
  }
  return {
    count: filtered.select((eb) => eb.fn.countAll().as('total')).compile(),
    page: filtered
      .selectAll('sessions')
      .orderBy('sessions.last_interaction_at', 'desc')
      .orderBy('sessions.id', 'desc')
      .limit(50)
      .offset(0)
      .compile(),
  };
}

async function explain(db: Kysely<Database>, workspaceId: string, scenario: Scenario): Promise<string> {
  const lines: string[] = [];
  for (const [label, compiled] of Object.entries(listQueries(db, workspaceId, scenario, 'exists'))) {
    const query = { ...compiled, sql: `EXPLAIN QUERY PLAN ${compiled.sql}` };
    const plan = await db.executeQuery<{ detail: string }>(query);
    lines.push(`  ${label}:`, ...plan.rows.map((row) => `    ${row.detail}`));
  }
  return lines.join('\n');
}

/** In-process median of the count + page statements of both shapes (no HTTP, no JSON). */
async function compareShapes(
  db: Kysely<Database>,
  workspaceId: string,
  scenarios: Scenario[],
  label: string,
) {
  console.log(`\nIn-process count + page statements, median of 15 (${label}):\n`);
  console.log(
    '| query | repository (EXISTS per filter) ms | `id IN (SELECT session_id …)` ms |\n|---|---:|---:|',
  );
  for (const scenario of scenarios) {
    const medians = [];
    for (const shape of ['exists', 'in'] as const) {
      const { count, page } = listQueries(db, workspaceId, scenario, shape);
      const samples: number[] = [];
      for (let i = 0; i < 15; i++) {
        const started = performance.now();
        await db.executeQuery(count);
        await db.executeQuery(page);
        samples.push(performance.now() - started);
      }
      medians.push(
        percentile(
          samples.sort((a, b) => a - b),
          50,
        ).toFixed(2),
      );
    }
    console.log(`| ${scenario.name} | ${medians.join(' | ')} |`);
  }
}

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? NaN;
}

async function measure(url: string, headers: Record<string, string>) {
  for (let i = 0; i < 5; i++) await (await fetch(url, { headers })).text(); // warm-up
  const samples: number[] = [];
  let total = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers });
    const body = (await response.json()) as { total: number; sessions: unknown[] };
    samples.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`${url}: ${response.status} ${JSON.stringify(body)}`);
    total = body.total;
  }
  samples.sort((a, b) => a - b);
  return { total, median: percentile(samples, 50), p99: percentile(samples, 99) };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-runs-session-bench-'));
  const adminToken = randomBytes(24).toString('base64url');
  const config = loadConfig({
    PORT: '0',
    DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
    AGENT_RUNS_ADMIN_TOKEN: adminToken,
    AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
  });
  const service = await createService(config, { logger: pino({ level: 'silent' }), dev: false });
  try {
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = service.app.server.address() as AddressInfo;
    const base = `http://127.0.0.1:${port}`;
    const admin = async (path: string, body: unknown) => {
      const response = await fetch(`${base}/admin/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (response.status !== 201)
        throw new Error(`admin ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as Record<string, string>;
    };
    await admin('/workspaces', { slug: 'bench' });
    const { key } = await admin('/workspaces/bench/api-keys', {});
    const headers = { authorization: `Bearer ${key}` };
    const { db } = service.resources.storage;
    const workspace = await service.resources.repos.workspaces.findBySlug('bench');
    if (!workspace) throw new Error('workspace missing');

    const loadStarted = performance.now();
    await bulkLoad(db, workspace.id, SESSIONS);
    log(
      `loaded ${SESSIONS} sessions (${SESSIONS * 3} metadata rows) in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`,
    );

    const run = async (title: string) => {
      const rows: string[] = [];
      const slow: Scenario[] = [];
      for (const scenario of SCENARIOS) {
        const url = `${base}/api/v1/workspaces/bench/agent-sessions${scenario.query ? `?${scenario.query}` : ''}`;
        const result = await measure(url, headers);
        if (result.median > SLOW_MEDIAN_MS) slow.push(scenario);
        rows.push(
          `| ${scenario.name} | \`${scenario.query || '(none)'}\` | ${result.total} | ${result.median.toFixed(2)} | ${result.p99.toFixed(2)} |`,
        );
        log(`${title}: ${scenario.name}: median ${result.median.toFixed(2)} ms`);
      }
      console.log(
        `\n### ${title}: ${SESSIONS.toLocaleString('en-US')} sessions, ${REQUESTS} requests each\n`,
      );
      console.log('| query | parameters | total | median ms | p99 ms |\n|---|---|---:|---:|---:|');
      console.log(rows.join('\n'));
      return slow;
    };

    const slow = await run('Schema as migrated');
    for (const scenario of slow) {
      console.log(`\nEXPLAIN QUERY PLAN, ${scenario.name} (median over ${SLOW_MEDIAN_MS} ms):`);
      console.log(await explain(db, workspace.id, scenario));
    }
    if (slow.length > 0) {
      await compareShapes(db, workspace.id, slow, 'no statistics, as the service runs');
      await sql`ANALYZE`.execute(db);
      await compareShapes(db, workspace.id, slow, 'after ANALYZE');
      await run('After ANALYZE (statistics only; the service still sends EXISTS)');
    }
  } finally {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
