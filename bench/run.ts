/**
 * `npm run bench`: the service versus the fake provider called directly, side by
 * side, at concurrency 1, 10 and 100. Three processes: this load generator, the
 * service (bench/service-process.ts, on a fresh SQLite file) and the fake
 * provider (bench/fake-provider-process.ts). See `--help`.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checkDurability } from './durability.ts';
import type { ChildUsage } from './ipc.ts';
import { runLoad } from './load.ts';
import { Bench, levelResult } from './measure.ts';
import { summarizeProfile, threadProfiles, type Window } from './profile-summary.ts';
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

const USAGE = `usage: node bench/run.ts [--rounds N] [--levels 1,10,100] [--json] [--profile] [--scale]
  --rounds N     runs per concurrency level and side (default: 100 at c=1, 300 at c=10, 500 at c=100)
  --levels L     comma-separated concurrency levels (default 1,10,100,100s); a trailing s spreads the
                 clients' first starts over one run's duration (steady state) instead of starting
                 them together (waves of c simultaneous runs, every run taking the same time)
  --json         print one JSON document on stdout instead of tables (progress goes to stderr)
  --profile      run the service under --cpu-prof and summarize the measured windows (event loop thread)
  --model-threads N  the service's AGENT_RUNS_MODEL_THREADS (default: its own default, cores - 1 up to 4)
  --scale        the scale-out benchmark (PostgreSQL + Redis, needs both running); --rounds sets its run count (default 1000)`;

const DEFAULT_ROUNDS: Record<number, number> = { 1: 100, 10: 300, 100: 500 };
const IDLE_WINDOW_MS = 3000;

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string' },
    levels: { type: 'string', default: '1,10,100,100s' },
    json: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'model-threads': { type: 'string' },
    scale: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
if (args.scale) {
  const runs = args.rounds === undefined ? 1000 : Number(args.rounds);
  const table = await runScaleBenchmark(runs, (line) => process.stderr.write(`bench: ${line}\n`));
  console.log(`\n${table}\n`);
  process.exit(0);
}
const rounds = args.rounds === undefined ? undefined : Number(args.rounds);
const modelThreads = args['model-threads'] === undefined ? undefined : Number(args['model-threads']);
const parsedLevels = args.levels.split(',').map(parseLevel);
if (
  (rounds !== undefined && !(Number.isInteger(rounds) && rounds > 0)) ||
  parsedLevels.some((level) => level === undefined) ||
  (modelThreads !== undefined && !(Number.isInteger(modelThreads) && modelThreads >= 0))
) {
  console.error(USAGE);
  process.exit(2);
}
const levels = parsedLevels as LoadLevel[];

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
const out = (text: string) => {
  if (!args.json) process.stdout.write(`${text}\n`);
};

const profileDir = args.profile ? mkdtempSync(join(os.tmpdir(), 'agent-runs-bench-profile-')) : undefined;
const processes = await startBenchProcesses({
  ...(profileDir && { profileDir }),
  ...(modelThreads !== undefined && { modelThreads }),
});
try {
  const { fake, service, target, scenario } = processes;
  log(scenario);
  log(`service pid ${service.pid} at ${service.url}; fake provider pid ${fake.pid} at ${fake.url}`);
  const bench = new Bench(fake, service, target);

  log('warming up: 20 runs on each side at concurrency 5');
  await runLoad(5, 20, bench.run('direct'));
  await runLoad(5, 20, bench.run('service'));

  const results: LevelResult[] = [];
  const windows: Window[] = [];
  for (const load of levels) {
    const { concurrency } = load;
    const total = Math.max(rounds ?? DEFAULT_ROUNDS[concurrency] ?? 300, concurrency);
    await fake.call('reset');
    log(`${levelName(load)}: ${total} runs direct…`);
    const direct = await bench.measure('direct', load, total, processes.runDurationMs);
    log(`${levelName(load)}: ${total} runs through the service…`);
    const viaService = await bench.measure('service', load, total, processes.runDurationMs);
    if (viaService.window) windows.push(viaService.window);
    const level = levelResult(load, direct, viaService);
    results.push(level);
    out(`\n${levelTable(level)}`);
  }

  // Whether the service burns CPU with nothing to do (timers, pollers): that would be charged to every run.
  await sleep(1000);
  const idle0 = await service.call<ChildUsage>('usage');
  await sleep(IDLE_WINDOW_MS);
  const idle1 = await service.call<ChildUsage>('usage');
  const idleCpu = cpuMs(idle0.cpu, idle1.cpu);
  const idleCpuMsPerSec = ((idleCpu.user + idleCpu.system) * 1000) / IDLE_WINDOW_MS;
  out(`\nservice idle CPU after the load: ${idleCpuMsPerSec.toFixed(2)} ms per second`);

  log('stopping the service and checking the event log');
  await processes.stopService();
  const durability = checkDurability(processes.databasePath, bench.serviceRunsStarted, bench.framesSeen);
  const checks = evaluateTargets(results, durability);
  const table = markdown(results, checks, scenario);

  let profileFiles: string[] | undefined;
  let profileText: string | undefined;
  if (profileDir) {
    const profiles = threadProfiles(profileDir);
    profileFiles = profiles.map((profile) => profile.path);
    profileText =
      profiles.length > 0
        ? profiles
            .map((profile) => `${profile.thread.toUpperCase()}\n${summarizeProfile(profile.path, windows)}`)
            .join('\n\n')
        : `no profile was written in ${profileDir}`;
  }

  log('tool-result round trip (in one process)…');
  const toolRoundTrip = await measureToolRoundTrip(200);
  out(
    `\ntool-result round trip (POST → next model request at the provider), ${toolRoundTrip.rounds} rounds: ` +
      `median ${toolRoundTrip.medianMs.toFixed(2)} ms, p99 ${toolRoundTrip.p99Ms.toFixed(2)} ms (target: median < 5 ms)`,
  );

  if (args.json) {
    const document = {
      scenario,
      toolRoundTrip,
      levels: results,
      idleCpuMsPerSec,
      durability,
      targets: checks,
      markdown: table,
    };
    process.stdout.write(`${JSON.stringify({ ...document, profiles: profileFiles }, null, 2)}\n`);
    if (profileText) process.stderr.write(`${profileText}\n`);
  } else {
    out(`\ntargets:\n${targetsTable(checks)}`);
    out(`\nmarkdown (for the README):\n\n${table}\n`);
    if (profileText) out(`\n${profileText}\n`);
  }
} finally {
  await processes.close();
}
