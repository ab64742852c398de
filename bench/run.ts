/**
 * `npm run bench`: the service versus the fake provider called directly, side by
 * side, at concurrency 1, 10, 100 and 1,000, then 10,000 idle SSE subscribers on
 * one service process. Three processes: this load generator, the service
 * (bench/service-process.ts, on a fresh SQLite file) and the fake provider
 * (bench/fake-provider-process.ts). See `--help`.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { agentSockets } from './clients.ts';
import { checkDurability } from './durability.ts';
import { measureIdleSubscribers } from './idle-subscribers.ts';
import type { ChildUsage } from './ipc.ts';
import { runLoad } from './load.ts';
import { openFilesLimit } from './machine.ts';
import { Bench, levelResult } from './measure.ts';
import { summarizeProfile, threadProfiles, type Window } from './profile-summary.ts';
import { idleTable, type IdleResult } from './idle-report.ts';
import {
  evaluateTargets,
  levelName,
  levelTable,
  markdown,
  parseLevel,
  targetsTable,
  type LevelResult,
  type LoadLevel,
} from './report.ts';
import { cpuMs, sleep, startBenchProcesses } from './setup.ts';
import { measureToolRoundTrip } from './tool-round-trip.ts';
import { runScaleBenchmark } from './scale.ts';
import { runScaleLevels } from './scale-levels.ts';
import { startChild } from './children.ts';
import type { OtlpProtocol } from './setup.ts';
import { TracingSide } from './tracing.ts';
import {
  tracingLine,
  tracingMarkdown,
  tracingSummary,
  tracingTargets,
  type TracingResult,
} from './tracing-report.ts';

const USAGE = `usage: node bench/run.ts [--rounds N] [--levels 1,10,100,100s,1000] [--idle N] [--json] [--profile] [--tracing] [--scale [--workers W] [--wave]]
  --rounds N     runs per concurrency level and side (default: 100 at c=1, 300 at c=10, 500 at c=100,
                 3000 at c=1000, else 300; never fewer than the level's concurrency)
  --levels L     comma-separated concurrency levels (default 1,10,100,100s,1000; "none": no levels); a
                 trailing s spreads the clients' first starts over one run's duration (steady state)
                 instead of starting them together (waves of c simultaneous runs, every run taking the
                 same time)
  --idle N       idle SSE subscribers on a fresh service process (default 10000; 0 skips it)
  --idle-runs N  runs held at the provider that the idle subscribers are spread over (default 10)
  --heartbeat-ms N   the idle service's SSE heartbeat interval (default 15000, the service's default)
  --idle-ticks N     heartbeat intervals in the idle CPU window (default 3)
  --json         print one JSON document on stdout instead of tables (progress goes to stderr)
  --profile      run the service under --cpu-prof and summarize the measured windows (every thread); with
                 --tracing, the traced service too
  --model-threads N  the service's AGENT_RUNS_MODEL_THREADS (default: its own default, cores - 1 up to 4)
  --controls C   the run controls of every service run: defaults (the spec's defaults: loop detection,
                 tool budgets, the tool-turn cap) or off (loopDetection false, toolBudgets {})
  --tracing      also measure every level on a second service process with tracing on, exporting to a
                 local OTLP/HTTP receiver (its own process on 127.0.0.1) through OTEL_EXPORTER_OTLP_ENDPOINT:
                 service CPU per run off / on side by side, and the spans and export requests received
                 (with --scale: the scale-out cluster's processes export their spans to such a receiver; run it
                 with and without --tracing to compare the CPU per run)
  --tracing-protocol P   the traced service's OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: http/protobuf (default) or http/json
  --log-level L  the service's LOG_LEVEL (default: unset, the service's default, info, as \`agent-runs serve\`
                 runs with an empty environment: the headline figures); e.g. silent or warn for a column beside them
  --scale        the scale-out benchmark: the levels (default 1,100,100s; --levels, --rounds) direct and through
                 one API process and one worker, then one API and two workers (--workers 1,2), on a PostgreSQL
                 cluster and a Redis server the bench starts (initdb, redis-server); per level, PostgreSQL
                 transactions, statements and rows, Redis commands by name, and the CPU of every process
                 (API, workers, PostgreSQL, Redis), per run, less what the idle deployment does
  --workers W    with --scale: the worker processes of each configuration in turn (default 1,2)
  --wave         with --scale: instead, the earlier scale bench on the shared PostgreSQL and Redis (1,000
                 runs started at once, --rounds sets their number, one worker then two; idle subscribers'
                 memory)`;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const DEFAULT_ROUNDS: Record<number, number> = { 1: 100, 10: 300, 100: 500, 1000: 3000 };
const IDLE_WINDOW_MS = 3000;

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string' },
    levels: { type: 'string' },
    workers: { type: 'string', default: '1,2' },
    wave: { type: 'boolean', default: false },
    idle: { type: 'string', default: '10000' },
    'idle-runs': { type: 'string', default: '10' },
    'heartbeat-ms': { type: 'string', default: '15000' },
    'idle-ticks': { type: 'string', default: '3' },
    json: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'model-threads': { type: 'string' },
    scale: { type: 'boolean', default: false },
    controls: { type: 'string', default: 'defaults' },
    tracing: { type: 'boolean', default: false },
    'tracing-protocol': { type: 'string', default: 'http/protobuf' },
    'log-level': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
if (args.scale && !args.wave) {
  const levels = (args.levels ?? '1,100,100s').split(',').map(parseLevel);
  const workers = args.workers.split(',').map(Number);
  const protocol = args['tracing-protocol'];
  const rounds = args.rounds === undefined ? undefined : Number(args.rounds);
  if (
    levels.some((level) => level === undefined) ||
    workers.some(
      (count, index) => !Number.isInteger(count) || count < 1 || count < (workers[index - 1] ?? 1),
    ) ||
    (rounds !== undefined && !(Number.isInteger(rounds) && rounds >= 1)) ||
    !isOtlpProtocol(protocol)
  ) {
    console.error(USAGE);
    process.exit(2);
  }
  const receiver = args.tracing ? await startChild('./otlp-receiver-process.ts') : undefined;
  try {
    const table = await runScaleLevels({
      levels: levels as LoadLevel[],
      workers,
      ...(rounds !== undefined && { rounds }),
      ...(receiver && { tracingUrl: receiver.url, tracing: protocol }),
      log: (line) => process.stderr.write(`bench: ${line}\n`),
      out: (text) => process.stdout.write(`${text}\n`),
    });
    console.log(`\nmarkdown (for docs/performance.md):\n\n${table}\n`);
  } finally {
    await receiver?.stop();
  }
  process.exit(0);
}
if (args.scale) {
  const runs = args.rounds === undefined ? 1000 : Number(args.rounds);
  const protocol = args['tracing-protocol'];
  if (!isOtlpProtocol(protocol)) {
    console.error(USAGE);
    process.exit(2);
  }
  const table = await runScaleBenchmark(runs, (line) => process.stderr.write(`bench: ${line}\n`), {
    ...(args.tracing && { tracing: protocol }),
  });
  console.log(`\n${table}\n`);
  process.exit(0);
}
const wholeNumber = (text: string | undefined, min: number) =>
  text === undefined ? undefined : Number.isInteger(Number(text)) && Number(text) >= min ? Number(text) : NaN;
const rounds = wholeNumber(args.rounds, 1);
const modelThreads = wholeNumber(args['model-threads'], 0);
const idleSubscribers = wholeNumber(args.idle, 0) as number;
const idleRuns = wholeNumber(args['idle-runs'], 1) as number;
const heartbeatMs = wholeNumber(args['heartbeat-ms'], 1000) as number;
const idleTicks = wholeNumber(args['idle-ticks'], 1) as number;
const levelsArg = args.levels ?? '1,10,100,100s,1000';
const parsedLevels = levelsArg === 'none' ? [] : levelsArg.split(',').map(parseLevel);
if (
  [rounds, modelThreads, idleSubscribers, idleRuns, heartbeatMs, idleTicks].some((value) =>
    Number.isNaN(value),
  ) ||
  parsedLevels.some((level) => level === undefined) ||
  (args.controls !== 'defaults' && args.controls !== 'off') ||
  (args['log-level'] !== undefined && !LOG_LEVELS.includes(args['log-level'])) ||
  !isOtlpProtocol(args['tracing-protocol'])
) {
  console.error(USAGE);
  process.exit(2);
}
const levels = parsedLevels as LoadLevel[];
const tracingProtocol = args['tracing-protocol'];
const maxConcurrency = Math.max(0, ...levels.map((level) => level.concurrency));

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
const out = (text: string) => {
  if (!args.json) process.stdout.write(`${text}\n`);
};

// Sockets: at c the load generator holds c connections to the service and c to the fake, the service
// c from clients and c to the fake; files, pipes and the database come on top.
const filesNeeded = 2 * maxConcurrency + 512;
const ourLimit = openFilesLimit('self');
if (ourLimit !== undefined && ourLimit < filesNeeded) {
  console.error(
    `bench: open files are limited to ${ourLimit} (ulimit -n); c=${maxConcurrency} needs about ${filesNeeded}. Raise it (ulimit -n ${filesNeeded}) or lower --levels.`,
  );
  process.exit(2);
}

const startedAt = performance.now();
const profileDir = args.profile ? mkdtempSync(join(os.tmpdir(), 'agent-runs-bench-profile-')) : undefined;
// The traced service's profiles go to a folder of their own, summarized apart.
const tracedProfileDir = profileDir && args.tracing ? mkdtempSync(join(profileDir, 'traced-')) : undefined;
// The service's default worker concurrency (256) unless a level needs more: every run of the largest
// level at once, and the runs still finishing when their clients start the next.
const workerConcurrency = Math.min(10_000, 2 * maxConcurrency);
const serviceOptions = {
  ...(modelThreads !== undefined && { modelThreads }),
  ...(workerConcurrency > 256 && { workerConcurrency }),
  ...(args['log-level'] !== undefined && { logLevel: args['log-level'] }),
};
const specExtras = args.controls === 'off' ? { loopDetection: false, toolBudgets: {} } : undefined;
const processes = await startBenchProcesses({ ...(profileDir && { profileDir }), ...serviceOptions });
let tracing: TracingSide | undefined;
try {
  const { fake, service, target } = processes;
  const scenario = `${processes.scenario}; service logging ${args['log-level'] === undefined ? 'at info (LOG_LEVEL unset, the default)' : `LOG_LEVEL=${args['log-level']}`}, stdout to a file${workerConcurrency > 256 ? `; AGENT_RUNS_WORKER_CONCURRENCY=${workerConcurrency}` : ''}`;
  log(scenario);
  log(
    `service pid ${service.pid} at ${service.url}; fake provider pid ${fake.pid} at ${fake.url}; ` +
      `open files allowed: load generator ${ourLimit ?? 'unknown'}, service ${openFilesLimit(service.pid) ?? 'unknown'}, fake ${openFilesLimit(fake.pid) ?? 'unknown'}`,
  );
  const bench = new Bench(fake, service, { ...target, ...(specExtras && { specExtras }) });
  if (args.tracing) {
    const tracedOptions = { ...serviceOptions, ...(tracedProfileDir && { profileDir: tracedProfileDir }) };
    tracing = await TracingSide.start(processes, tracingProtocol, tracedOptions, specExtras);
    log(
      `tracing on: a second service, pid ${tracing.pid}, exports spans (OTLP ${tracingProtocol}) to the receiver at ${tracing.receiverUrl}`,
    );
  }

  log('warming up: 20 runs on each side at concurrency 5');
  bench.group('warm-up');
  await runLoad(5, 20, bench.run('direct'));
  await runLoad(5, 20, bench.run('service'));
  await tracing?.warmUp();

  const results: LevelResult[] = [];
  const windows: Window[] = [];
  for (const load of levels) {
    const { concurrency } = load;
    const total = Math.max(rounds ?? DEFAULT_ROUNDS[concurrency] ?? 300, concurrency);
    bench.group(levelName(load));
    await fake.call('reset');
    log(`${levelName(load)}: ${total} runs direct…`);
    const direct = await bench.measure('direct', load, total, processes.runDurationMs);
    log(`${levelName(load)}: ${total} runs through the service…`);
    const viaService = await bench.measure('service', load, total, processes.runDurationMs);
    if (viaService.window) windows.push(viaService.window);
    const level = levelResult(load, direct, viaService);
    results.push(level);
    out(`\n${levelTable(level)}`);
    if (tracing) {
      log(`${levelName(load)}: ${total} runs through the service with tracing on…`);
      const traced = await tracing.measure(load, total, processes.runDurationMs, direct, level);
      out(`  ${tracingLine(traced, tracingProtocol)}`);
    }
    log(`load generator sockets open: ${agentSockets()}`);
  }

  // Whether the service burns CPU with nothing to do (timers, pollers): that would be charged to every run.
  await sleep(1000);
  const idle0 = await service.call<ChildUsage>('usage');
  await sleep(IDLE_WINDOW_MS);
  const idle1 = await service.call<ChildUsage>('usage');
  const idleCpu = cpuMs(idle0.cpu, idle1.cpu);
  const idleCpuMsPerSec = ((idleCpu.user + idleCpu.system) * 1000) / IDLE_WINDOW_MS;
  out(`\nservice idle CPU after the load: ${idleCpuMsPerSec.toFixed(2)} ms per second`);

  let tracingResult: TracingResult | undefined;
  if (tracing) {
    log('stopping the traced service and reading what the OTLP receiver got');
    tracingResult = await tracing.finish();
    out(`\n${tracingSummary(tracingResult)}`);
  }

  log('stopping the service and checking the event log');
  await processes.stopService();
  const durability = checkDurability(
    processes.databasePath,
    bench.serviceRunsStarted,
    bench.framesSeen,
    bench.groups,
  );
  for (const level of results) {
    const group = durability.groups.find((entry) => entry.label === levelName(level));
    if (group) level.durability = group;
  }

  let idle: IdleResult | undefined;
  let idleError: string | undefined;
  if (idleSubscribers > 0) {
    try {
      idle = await measureIdleSubscribers(processes, {
        subscribers: idleSubscribers,
        runs: idleRuns,
        heartbeatMs,
        ticks: idleTicks,
        log,
      });
      out(`\n${idleTable(idle)}`);
    } catch (error) {
      idleError = error instanceof Error ? error.message : String(error);
      log(`idle subscribers: not measured: ${idleError}`);
    }
  }

  const checks = [
    ...evaluateTargets(results, durability, idle ?? idleError),
    ...(tracingResult ? tracingTargets(tracingResult) : []),
  ];
  const table = [
    markdown(results, checks, scenario, idle),
    ...(tracingResult ? [tracingMarkdown(tracingResult)] : []),
  ].join('\n\n');

  let profileFiles: string[] | undefined;
  let profileText: string | undefined;
  if (profileDir) {
    const profiled = [{ label: '', dir: profileDir, windows }];
    if (tracedProfileDir && tracing) {
      profiled.push({ label: 'TRACED SERVICE, ', dir: tracedProfileDir, windows: tracing.windows });
    }
    const texts: string[] = [];
    profileFiles = [];
    for (const { label, dir, windows: measured } of profiled) {
      const profiles = threadProfiles(dir);
      profileFiles.push(...profiles.map((profile) => profile.path));
      texts.push(
        ...(profiles.length > 0
          ? profiles.map(
              (profile) =>
                `${label}${profile.thread.toUpperCase()}\n${summarizeProfile(profile.path, measured)}`,
            )
          : [`no profile was written in ${dir}`]),
      );
    }
    profileText = texts.join('\n\n');
  }

  log('tool-result round trip (in one process)…');
  const toolRoundTrip = await measureToolRoundTrip(200);
  out(
    `\ntool-result round trip (POST → next model request at the provider), ${toolRoundTrip.rounds} rounds: ` +
      `median ${toolRoundTrip.medianMs.toFixed(2)} ms, p99 ${toolRoundTrip.p99Ms.toFixed(2)} ms (target: median < 5 ms)`,
  );
  const minutes = (performance.now() - startedAt) / 60_000;
  log(`done in ${minutes.toFixed(1)} minutes`);

  if (args.json) {
    const document = {
      scenario,
      toolRoundTrip,
      levels: results,
      idleCpuMsPerSec,
      durability,
      idleSubscribers: idle ?? (idleError === undefined ? undefined : { error: idleError }),
      tracing: tracingResult,
      targets: checks,
      markdown: table,
      minutes,
    };
    process.stdout.write(`${JSON.stringify({ ...document, profiles: profileFiles }, null, 2)}\n`);
    if (profileText) process.stderr.write(`${profileText}\n`);
  } else {
    out(`\ntargets:\n${targetsTable(checks)}`);
    out(`\nmarkdown (for docs/performance.md):\n\n${table}\n`);
    if (profileText) out(`\n${profileText}\n`);
  }
} finally {
  await tracing?.close();
  await processes.close();
}

function isOtlpProtocol(value: string): value is OtlpProtocol {
  return value === 'http/protobuf' || value === 'http/json';
}
