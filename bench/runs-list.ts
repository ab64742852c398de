/**
 * `node bench/runs-list.ts [--engine=sqlite|postgres] [--runs N]`: the runs list (`GET {ws}/agent-runs`)
 * at 1,000,000 runs in one workspace. A fresh database (a temp SQLite file, or a new database on the
 * PostgreSQL server of AGENT_RUNS_BENCH_POSTGRES_URL) is migrated and bulk-loaded through Kysely with
 * a realistic spread: 90 days of runs, 90% succeeded, 6% failed, 2% cancelled and the unfinished ones
 * (queued, running, waiting) among the newest; 20 agents (a few busy, most quiet) plus 30% ephemeral
 * runs; 40% of runs in 100,000 sessions; metadata `customer` (one of 10,000), `channel` (one of 5) and,
 * on half the runs, `env`. Then each query is timed as the route runs it (RunRepository.list: the
 * statement plus the row mapping, no HTTP), with its EXPLAIN QUERY PLAN / EXPLAIN.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CompiledQuery, type Insertable, type Kysely } from 'kysely';
import pg from 'pg';
import { newId } from '../src/domain/ids.ts';
import type { RunListQuery } from '../src/engine/ports.ts';
import { migrateToLatest, openStorage, type StorageConfig } from '../src/storage/database.ts';
import { createRepositories } from '../src/storage/repositories/index.ts';
import { runListSelect, withListSettings } from '../src/storage/repositories/run-list-query.ts';
import type { Database } from '../src/storage/schema.ts';
import { seededRandom } from './seeded-random.ts';

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'sqlite' },
    runs: { type: 'string', default: '1000000' },
    repeat: { type: 'string', default: '30' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help || (args.engine !== 'sqlite' && args.engine !== 'postgres')) {
  console.log('usage: node bench/runs-list.ts [--engine=sqlite|postgres] [--runs N] [--repeat N] [--keep]');
  process.exit(args.help ? 0 : 1);
}
const ENGINE = args.engine;
const RUNS = Number(args.runs);
const REPEAT = Number(args.repeat);
const POSTGRES_URL = process.env.AGENT_RUNS_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DAY_MS = 86_400_000;
const AGENTS = 20;
const CHANNELS = ['web', 'email', 'chat', 'voice', 'api'];
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

const SPEC = JSON.stringify({
  systemPrompt: 'You are a helpful support assistant.',
  prompt: 'Where is my order?',
  effective: {
    model: { ref: 'provider:openai:gpt', id: 'openai/gpt', provider: 'openai', vendorModelId: 'gpt' },
  },
});
const TOKENS = JSON.stringify({
  inputTokens: 1200,
  cachedTokens: 300,
  reasoningTokens: 0,
  outputTokens: 180,
});
const MODEL = JSON.stringify({ id: 'openai/gpt', provider: 'openai', vendorModelId: 'gpt' });

/** The run's status: terminal ones spread over the 90 days, unfinished ones among the newest 5,000. */
function statusOf(index: number, count: number, draw: number): string {
  if (count - index <= 5000 && draw < 0.3) return draw < 0.1 ? 'queued' : draw < 0.2 ? 'running' : 'waiting';
  return draw < 0.9 ? 'succeeded' : draw < 0.96 ? 'failed' : draw < 0.98 ? 'cancelled' : 'succeeded';
}

async function bulkLoad(db: Kysely<Database>, workspaceId: string, agents: string[], count: number) {
  const next = seededRandom(42);
  const start = Date.now() - 90 * DAY_MS;
  const step = (90 * DAY_MS) / count;
  const sessions = Array.from({ length: 100_000 }, () => newId('session'));
  const BATCH = ENGINE === 'postgres' ? 2000 : 1000;
  for (let from = 0; from < count; from += BATCH) {
    const runs: Insertable<Database['runs']>[] = [];
    const metadata: Database['run_metadata'][] = [];
    for (let i = from; i < Math.min(count, from + BATCH); i++) {
      const createdAt = new Date(start + Math.floor(i * step + next() * step)).toISOString();
      const status = statusOf(i, count, next());
      const ended = !['queued', 'running', 'waiting'].includes(status);
      // A few busy agents, most quiet: agent k gets about 1/2^(k+1) of the agent runs.
      const agentDraw = next();
      const agent =
        agentDraw < 0.3 ? null : (agents[Math.min(AGENTS - 1, Math.floor(-Math.log2(next())))] ?? null);
      const session = next() < 0.4 ? (sessions[Math.floor(next() * sessions.length)] ?? null) : null;
      const values: Record<string, string> = {
        customer: `c${Math.floor(next() * 10_000)}`,
        channel: CHANNELS[Math.floor(next() * CHANNELS.length)] ?? 'web',
      };
      if (next() < 0.5) values.env = next() < 0.8 ? 'prod' : 'staging';
      const id = newId('run');
      runs.push({
        id,
        workspace_id: workspaceId,
        agent_id: agent,
        session_id: session,
        api_key_id: null,
        status,
        spec: SPEC,
        metadata: JSON.stringify(values),
        final_text: ended ? 'Your order ships tomorrow.' : null,
        error: status === 'failed' ? 'provider error' : null,
        failure_reason: null,
        tokens: ended ? TOKENS : null,
        turns: ended ? 2 : null,
        model: ended ? MODEL : null,
        cancel_requested_at: null,
        attempt: 1,
        dispatch: ended
          ? null
          : status === 'queued'
            ? 'waiting'
            : status === 'waiting'
              ? 'parked'
              : 'admitted',
        wake_at: null,
        admission: 1,
        trace_context: null,
        created_at: createdAt,
        updated_at: createdAt,
        ended_at: ended ? createdAt : null,
      });
      for (const [key, value] of Object.entries(values)) {
        metadata.push({ run_id: id, workspace_id: workspaceId, key, value, created_at: createdAt });
      }
    }
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('runs').values(runs).execute();
      await trx.insertInto('run_metadata').values(metadata).execute();
    });
    if ((from / BATCH) % 100 === 0) log(`${from + runs.length} runs loaded`);
  }
}

interface Scenario {
  name: string;
  query: Omit<RunListQuery, 'limit'> & { limit?: number };
}

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? NaN;
}

async function explain(db: Kysely<Database>, workspaceId: string, query: RunListQuery): Promise<string[]> {
  const compiled = runListSelect(db, workspaceId, query).compile();
  const prefix = ENGINE === 'postgres' ? 'EXPLAIN ' : 'EXPLAIN QUERY PLAN ';
  // Explained under the settings the repository runs it with.
  const plan = await withListSettings(db, query, (conn) =>
    conn.executeQuery<Record<string, string>>(
      CompiledQuery.raw(prefix + compiled.sql, [...compiled.parameters]),
    ),
  );
  return plan.rows.map((row) => row.detail ?? row['QUERY PLAN'] ?? JSON.stringify(row));
}

async function freshDatabase(): Promise<{ config: StorageConfig; drop(): Promise<void> }> {
  if (ENGINE === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'agent-runs-runs-bench-'));
    const path = join(dir, 'bench.db');
    return {
      config: { engine: 'sqlite', path, url: `sqlite:${path}` },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `agent_runs_bench_${randomBytes(4).toString('hex')}`;
  const server = async (text: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await server(`create database ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    config: { engine: 'postgres', url: url.toString() },
    drop: () => server(`drop database if exists ${name} with (force)`),
  };
}

async function main(): Promise<void> {
  const database = await freshDatabase();
  const storage = openStorage(database.config);
  try {
    await migrateToLatest(storage);
    const { db } = storage;
    const repos = createRepositories(db);
    const workspace = await repos.workspaces.create({
      slug: 'bench',
      name: 'bench',
      features: { apiKeys: true, oauthApps: true },
      rateLimits: {},
      maxConcurrentRuns: 100,
    });
    const agents = Array.from({ length: AGENTS }, () => newId('agent'));
    const loadStarted = performance.now();
    await bulkLoad(db, workspace.id, agents, RUNS);
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    // What autovacuum does after a bulk load (PostgreSQL: statistics, and the visibility map that lets
    // an index-only scan skip the table); SQLite gathers its planner statistics.
    await db.executeQuery(CompiledQuery.raw(ENGINE === 'postgres' ? 'VACUUM ANALYZE' : 'ANALYZE'));
    log(`loaded ${RUNS} runs in ${loadSeconds.toFixed(1)} s`);

    // The key of the run halfway down the list: a deep page starts after it (found once, by OFFSET).
    const middle = await db
      .selectFrom('runs')
      .select(['created_at', 'id'])
      .where('workspace_id', '=', workspace.id)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(Math.floor(RUNS / 2))
      .limit(1)
      .executeTakeFirstOrThrow();
    const deep = { createdAt: middle.created_at, id: middle.id };
    const [busy, , quiet] = [agents[0] ?? '', agents[1] ?? '', agents[12] ?? ''];
    const session = await db
      .selectFrom('runs')
      .select('session_id')
      .where('session_id', 'is not', null)
      .limit(1)
      .executeTakeFirstOrThrow();
    const none = { statuses: [], metadata: [] };
    const scenarios: Scenario[] = [
      { name: 'first page (no filter)', query: none },
      { name: 'deep page by cursor (500,000 runs down)', query: { ...none, after: deep } },
      { name: 'limit=200', query: { ...none, limit: 200 } },
      { name: 'status=succeeded (90%)', query: { ...none, statuses: ['succeeded'] } },
      { name: 'status=failed (6%)', query: { ...none, statuses: ['failed'] } },
      { name: 'status=failed, deep page', query: { ...none, statuses: ['failed'], after: deep } },
      { name: 'status=waiting (newest only)', query: { ...none, statuses: ['waiting'] } },
      { name: 'status=running&status=waiting', query: { ...none, statuses: ['running', 'waiting'] } },
      { name: 'status=failed&status=cancelled', query: { ...none, statuses: ['failed', 'cancelled'] } },
      { name: 'agentId (busiest, 35%)', query: { ...none, agentId: busy } },
      { name: 'agentId (quiet, 0.01%)', query: { ...none, agentId: quiet } },
      { name: 'sessionId (about 4 runs)', query: { ...none, sessionId: session.session_id ?? '' } },
      {
        name: 'metadata customer (1/10,000)',
        query: { ...none, metadata: [{ key: 'customer', value: 'c42' }] },
      },
      { name: 'metadata channel (1/5)', query: { ...none, metadata: [{ key: 'channel', value: 'web' }] } },
      {
        name: 'metadata channel, deep page',
        query: { ...none, metadata: [{ key: 'channel', value: 'web' }], after: deep },
      },
      {
        name: 'metadata customer AND channel',
        query: {
          ...none,
          metadata: [
            { key: 'customer', value: 'c42' },
            { key: 'channel', value: 'web' },
          ],
        },
      },
      {
        name: 'metadata channel AND env=staging',
        query: {
          ...none,
          metadata: [
            { key: 'channel', value: 'web' },
            { key: 'env', value: 'staging' },
          ],
        },
      },
      { name: 'agentId (busiest) + status=failed', query: { ...none, agentId: busy, statuses: ['failed'] } },
      {
        name: 'agentId (quiet) + status=succeeded',
        query: { ...none, agentId: quiet, statuses: ['succeeded'] },
      },
      {
        name: 'metadata channel + status=failed',
        query: { ...none, metadata: [{ key: 'channel', value: 'web' }], statuses: ['failed'] },
      },
      { name: 'allowlist of 3 agents', query: { ...none, agentScope: agents.slice(2, 5) } },
    ];
    console.log(
      `\n${ENGINE}: ${RUNS.toLocaleString('en-US')} runs in one workspace (loaded in ${loadSeconds.toFixed(0)} s); ` +
        `one page of 50 (limit+1 read, as the route), ${REPEAT} times each, ms:\n`,
    );
    console.log('| query | rows | median | p95 | max |\n|---|---:|---:|---:|---:|');
    const plans: string[] = [];
    for (const scenario of scenarios) {
      const query: RunListQuery = { ...scenario.query, limit: (scenario.query.limit ?? 50) + 1 };
      let rows = 0;
      for (let i = 0; i < 3; i++) rows = (await repos.runs.list(workspace.id, query)).length; // warm-up
      const samples: number[] = [];
      for (let i = 0; i < REPEAT; i++) {
        const started = performance.now();
        await repos.runs.list(workspace.id, query);
        samples.push(performance.now() - started);
      }
      samples.sort((a, b) => a - b);
      const [median, p95, max] = [percentile(samples, 50), percentile(samples, 95), samples.at(-1) ?? NaN];
      console.log(
        `| ${scenario.name} | ${rows} | ${median.toFixed(2)} | ${p95.toFixed(2)} | ${max.toFixed(2)} |`,
      );
      plans.push(
        `${scenario.name}:`,
        ...(await explain(db, workspace.id, query)).map((line) => `    ${line}`),
      );
    }
    console.log(`\nPlans (${ENGINE === 'postgres' ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN'}):\n`);
    console.log(plans.join('\n'));
  } finally {
    await storage.close();
    if (args.keep) log(`kept the database: ${database.config.url}`);
    else await database.drop();
  }
}

await main();
