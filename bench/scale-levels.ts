/**
 * `npm run bench -- --scale`: the levels of the embedded bench (direct against the service, side by
 * side) on the scale-out deployment: one API process and one worker, then one API and two workers,
 * started with the CLI on a PostgreSQL cluster and a Redis server of the bench's own. Around each
 * level it reads both servers' counters and CPU (bench/server-counters.ts): transactions,
 * statements and rows, Redis commands by name, per run, less what the idle deployment does.
 */
import pg from 'pg';
import { startCluster, type Cluster } from '../test/scale/cluster.ts';
import {
  startPrivatePostgres,
  startPrivateRedis,
  type PrivateServer,
} from '../test/scale/private-servers.ts';
import { startChild } from './children.ts';
import { clusterAsService, roleCpuMs } from './cluster-usage.ts';
import { compareWithLog } from './durability.ts';
import { runLoad } from './load.ts';
import { Bench, levelResult } from './measure.ts';
import { provisionWorkspace } from './provision.ts';
import { levelTable, type DurabilityCheck, type LoadLevel } from './report.ts';
import { countsText, groupLabel, scaleMarkdown, type ScaleLevel } from './scale-report.ts';
import {
  difference,
  lessIdle,
  POSTGRES_BENCH_SETTINGS,
  ServerCounters,
  type ServerDelta,
} from './server-counters.ts';
import { sleep, type OtlpProtocol } from './setup.ts';

const DEFAULT_ROUNDS: Record<number, number> = { 1: 100, 10: 300, 100: 500, 1000: 3000 };
/** PostgreSQL backends flush their pg_stat_database counts when idle, at most every 10 s when busy. */
const STATS_FLUSH_MS = 11_000;
const IDLE_WINDOW_MS = 30_000;
const DATABASE = 'agent_runs';

export interface ScaleLevelsOptions {
  levels: LoadLevel[];
  rounds?: number;
  /** Worker processes of each configuration, in turn (workers are added, never removed). */
  workers: number[];
  tracingUrl?: string;
  tracing?: OtlpProtocol;
  log: (line: string) => void;
  out: (text: string) => void;
}

export async function runScaleLevels(options: ScaleLevelsOptions): Promise<string> {
  const { levels, log, out } = options;
  const fake = await startChild('./fake-provider-process.ts');
  let postgres: PrivateServer | undefined;
  let redis: PrivateServer | undefined;
  let cluster: Cluster | undefined;
  let counters: ServerCounters | undefined;
  try {
    postgres = await startPrivatePostgres(POSTGRES_BENCH_SETTINGS);
    redis = await startPrivateRedis();
    await adminQuery(postgres.url, `create database ${DATABASE}`);
    const databaseUrl = new URL(postgres.url);
    databaseUrl.pathname = `/${DATABASE}`;
    const maxConcurrency = Math.max(0, ...levels.map((level) => level.concurrency));
    const workerConcurrency = Math.min(10_000, 2 * maxConcurrency);
    cluster = await startCluster({
      apis: 1,
      workers: options.workers[0] ?? 1,
      leaseMs: 15_000, // the service's default AGENT_RUNS_LEASE_MS
      databaseUrl: databaseUrl.toString(),
      redisUrl: redis.url,
      env: {
        // LOG_LEVEL info, as startCluster sets it: the service's default.
        ...(workerConcurrency > 256 && { AGENT_RUNS_WORKER_CONCURRENCY: String(workerConcurrency) }),
        ...(options.tracingUrl &&
          options.tracing && {
            OTEL_EXPORTER_OTLP_ENDPOINT: options.tracingUrl,
            OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: options.tracing,
          }),
      },
    });
    const api = cluster.apis[0];
    if (!api?.baseUrl) throw new Error('no API process');
    counters = await ServerCounters.open(postgres.url, DATABASE, redis.url);
    const target = await provisionWorkspace(api.baseUrl, cluster.adminToken, fake.url);
    const info = fake.info as { firstChunkDelayMs: number; chunkIntervalMs: number; textChunks: number };
    const runDurationMs = info.firstChunkDelayMs + info.textChunks * info.chunkIntervalMs;
    const bench = new Bench(fake, clusterAsService(cluster, api.baseUrl), target);
    log(
      `PostgreSQL ${postgres.url} and Redis ${redis.url} of the bench's own; ` +
        `API pid ${api.child.pid}, worker pids ${cluster.workers.map((worker) => worker.child.pid).join(', ')}`,
    );

    log('warming up: 20 runs on each side at concurrency 5');
    bench.group('warm-up');
    await runLoad(5, 20, bench.run('direct'));
    await runLoad(5, 20, bench.run('service'));

    const results: ScaleLevel[] = [];
    for (const [index, workers] of options.workers.entries()) {
      while (cluster.workers.length < workers) {
        log(`starting worker ${cluster.workers.length + 1}…`);
        cluster.workers.push(await cluster.startWorker(`worker${cluster.workers.length + 1}`));
      }
      if (index > 0) {
        bench.group(`warm-up, ${workers} workers`);
        await runLoad(5, 20, bench.run('service'));
      }
      const idle = await idleWindow(counters, cluster, log);
      out(
        `\n1 API + ${workers} worker(s), idle: ${countsText(idle.servers, idle.roles, idle.servers.seconds, 'per second')}`,
      );
      for (const load of levels) {
        const total = Math.max(options.rounds ?? DEFAULT_ROUNDS[load.concurrency] ?? 300, load.concurrency);
        const label = groupLabel(load, workers);
        bench.group(label);
        await fake.call('reset');
        log(`${label}: ${total} runs direct…`);
        const direct = await bench.measure('direct', load, total, runDurationMs);
        log(`${label}: ${total} runs through the cluster…`);
        const before = await counters.read();
        const roles0 = roleCpuMs(cluster);
        const service = await bench.measure('service', load, total, runDurationMs);
        const roles1 = roleCpuMs(cluster);
        await sleep(STATS_FLUSH_MS);
        const phase = difference(before, await counters.read());
        const roles = {
          api: roles1.api - roles0.api - (idle.roles.api * phase.seconds) / idle.servers.seconds,
          workers:
            roles1.workers - roles0.workers - (idle.roles.workers * phase.seconds) / idle.servers.seconds,
        };
        // The level's warm-up wave (bench/measure.ts) ran inside the counted window too.
        const runsCounted = total + Math.max(3, load.concurrency);
        const level: ScaleLevel = {
          workers,
          level: levelResult(load, direct, service),
          runsCounted,
          servers: lessIdle(phase, idle.servers),
          roles,
        };
        results.push(level);
        out(`\n1 API + ${workers} worker(s), ${levelTable(level.level)}`);
        out(`  per run: ${countsText(level.servers, roles, runsCounted, 'per run')}`);
      }
    }

    log('checking the event log');
    const durability = await checkLog(databaseUrl.toString(), bench);
    return scaleMarkdown(results, durability);
  } finally {
    await counters?.close();
    await cluster?.stop();
    await redis?.destroy();
    await postgres?.destroy();
    await fake.stop();
  }
}

/** What the deployment does with no run: subtracted from every level's counts. */
async function idleWindow(
  counters: ServerCounters,
  cluster: Cluster,
  log: (line: string) => void,
): Promise<{ servers: ServerDelta; roles: { api: number; workers: number } }> {
  log(`idle window (${IDLE_WINDOW_MS / 1000} s)…`);
  await sleep(STATS_FLUSH_MS);
  const before = await counters.read();
  const roles0 = roleCpuMs(cluster);
  await sleep(IDLE_WINDOW_MS);
  const roles1 = roleCpuMs(cluster);
  const servers = difference(before, await counters.read());
  return { servers, roles: { api: roles1.api - roles0.api, workers: roles1.workers - roles0.workers } };
}

async function checkLog(databaseUrl: string, bench: Bench): Promise<DurabilityCheck> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const runs = await client.query<{ id: string; status: string }>('select id, status from runs');
    const events = await client.query<{ run_id: string; n: string }>(
      'select run_id, count(*) as n from run_events group by run_id',
    );
    const statusOf = new Map(runs.rows.map((row) => [row.id, row.status]));
    const eventsOf = new Map(events.rows.map((row) => [row.run_id, Number(row.n)]));
    return compareWithLog(
      {
        runsCreated: statusOf.size,
        runsSucceeded: [...statusOf.values()].filter((status) => status === 'succeeded').length,
        eventsInLog: [...eventsOf.values()].reduce((sum, n) => sum + n, 0),
        statusOf,
        eventsOf,
      },
      bench.serviceRunsStarted,
      bench.framesSeen,
      bench.groups,
    );
  } finally {
    await client.end();
  }
}

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
