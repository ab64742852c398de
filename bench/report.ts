import type { Summary } from './stats.ts';

export interface ModeResult {
  runs: number;
  errors: number;
  firstErrors: string[];
  /** Time to first token and to the terminal event, ms from the start of the run's first request. */
  ttft: Summary;
  done: Summary;
  runsPerSec: number;
  /** When the fake provider had the request (body read), ms after the run's start. */
  providerRequest: Summary;
  /** First token at the client minus `providerRequest`: the provider's delay plus the way back. */
  afterProvider: Summary;
  /** Service only: POST answered / stream headers received, ms after the run's start. */
  ack?: Summary;
  streamOpen?: Summary;
  clientCpuMsPerRun: number;
  fakeCpuMsPerRun: number;
  /** Share of the machine's CPU (all cores) taken by processes other than the bench's three during the phase. */
  otherLoadPct: number;
}

export interface LevelResult {
  concurrency: number;
  starts: LoadLevel['starts'];
  direct: ModeResult;
  service: ModeResult;
  /** Service minus direct, per percentile (ms). */
  added: { ttftP50: number; ttftP99: number; doneP50: number; doneP99: number };
  /** Service divided by direct, per percentile. */
  ratio: { ttftP50: number; ttftP99: number; doneP50: number; doneP99: number };
  server: {
    cpuMsPerRun: number;
    /** The part spent on the event loop's thread (the rest: model threads, GC helpers, checkpoints). */
    mainThreadCpuMsPerRun: number;
    userMsPerRun: number;
    systemMsPerRun: number;
    rssMb: number;
    peakRssMb: number;
  };
}

export interface DurabilityCheck {
  runsCreated: number;
  runsSucceeded: number;
  eventsInLog: number;
  framesSeen: number;
  pass: boolean;
}

export interface TargetCheck {
  target: string;
  measured: string;
  pass: boolean | undefined;
}

const f1 = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : 'n/a');
const f2 = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');
const f3 = (value: number) => (Number.isFinite(value) ? value.toFixed(3) : 'n/a');
const signed = (value: number) =>
  Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(1)}` : 'n/a';

/**
 * A concurrency level and how its clients start: all together (then in waves, every run taking the
 * same time) or spread over one run's duration (a steady state). Written `100` and `100s`.
 */
export interface LoadLevel {
  concurrency: number;
  starts: 'together' | 'spread';
}

export function parseLevel(text: string): LoadLevel | undefined {
  const match = /^([1-9]\d*)(s?)$/.exec(text.trim());
  if (!match) return undefined;
  return { concurrency: Number(match[1]), starts: match[2] === 's' ? 'spread' : 'together' };
}

export function levelName(level: LoadLevel): string {
  return level.starts === 'spread' && level.concurrency > 1
    ? `c=${level.concurrency} (spread starts)`
    : `c=${level.concurrency}`;
}

export function evaluateTargets(
  levels: LevelResult[],
  durability: DurabilityCheck | undefined,
): TargetCheck[] {
  const c1 = levels.find((level) => level.concurrency === 1);
  const c100: Array<LevelResult | undefined> = levels.filter((level) => level.concurrency === 100);
  if (c100.length === 0) c100.push(undefined);
  const check = (
    level: LevelResult | undefined,
    target: string,
    value: (l: LevelResult) => number,
    limit: number,
    unit = ' ms',
  ) =>
    level
      ? {
          target,
          measured: `${unit === 'x' ? f3(value(level)) : signed(value(level))}${unit === 'x' ? 'x' : unit}`,
          pass: value(level) <= limit,
        }
      : { target, measured: 'not measured', pass: undefined };
  const worstCpu = levels.reduce((worst, level) => Math.max(worst, level.server.cpuMsPerRun), 0);
  return [
    check(c1, 'c=1: added median TTFT ≤ 3 ms', (l) => l.added.ttftP50, 3),
    ...c100.flatMap((level) => {
      const name = level ? levelName(level) : 'c=100';
      return [
        check(level, `${name}: added median TTFT ≤ 5 ms`, (l) => l.added.ttftP50, 5),
        check(level, `${name}: added p99 TTFT < 20 ms`, (l) => l.added.ttftP99, 20 - 1e-9),
        check(level, `${name}: median completion ≤ 1.02x direct`, (l) => l.ratio.doneP50, 1.02, 'x'),
      ];
    }),
    levels.length > 0
      ? {
          target: 'server CPU ≤ 6 ms per run (every level)',
          measured: levels
            .map((level) => `${levelName(level)}: ${f2(level.server.cpuMsPerRun)} ms`)
            .join(', '),
          pass: worstCpu <= 6,
        }
      : { target: 'server CPU ≤ 6 ms per run (every level)', measured: 'not measured', pass: undefined },
    durability
      ? {
          target: 'every event durable in SQLite',
          measured: `${durability.eventsInLog} events in the log for ${durability.framesSeen} frames streamed; ${durability.runsSucceeded}/${durability.runsCreated} runs succeeded`,
          pass: durability.pass,
        }
      : { target: 'every event durable in SQLite', measured: 'not checked', pass: undefined },
  ];
}

const verdict = (pass: boolean | undefined) => (pass === undefined ? 'n/a' : pass ? 'PASS' : 'FAIL');

function pad(cells: string[], widths: number[]): string {
  return cells
    .map((cell, index) => (index === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[index] ?? 0)))
    .join('  ');
}

export function levelTable(level: LevelResult): string {
  const { direct, service, added, ratio, server } = level;
  const widths = [26, 9, 9, 8, 7];
  const metric = (label: string, directMs: number, serviceMs: number, addedMs: number, ratioOf: number) =>
    pad([label, f1(directMs), f1(serviceMs), signed(addedMs), f3(ratioOf)], widths);
  const rows = [
    pad(['', 'direct', 'service', 'added', 'ratio'], widths),
    metric('first token   p50 ms', direct.ttft.p50, service.ttft.p50, added.ttftP50, ratio.ttftP50),
    metric('first token   p99 ms', direct.ttft.p99, service.ttft.p99, added.ttftP99, ratio.ttftP99),
    metric('terminal      p50 ms', direct.done.p50, service.done.p50, added.doneP50, ratio.doneP50),
    metric('terminal      p99 ms', direct.done.p99, service.done.p99, added.doneP99, ratio.doneP99),
    pad(['runs/s', f1(direct.runsPerSec), f1(service.runsPerSec), '', ''], widths),
    `server CPU per run: ${f2(server.cpuMsPerRun)} ms (user ${f2(server.userMsPerRun)}, system ${f2(server.systemMsPerRun)}; event loop thread ${f2(server.mainThreadCpuMsPerRun)}); RSS ${f1(server.rssMb)} MB, peak ${f1(server.peakRssMb)} MB`,
    `where the time goes (p50 ms from the run's start): POST answered ${f1(service.ack?.p50 ?? NaN)}, stream open ${f1(service.streamOpen?.p50 ?? NaN)}, provider has the request ${f1(service.providerRequest.p50)} (direct ${f1(direct.providerRequest.p50)}); provider request → first token at client ${f1(service.afterProvider.p50)} (direct ${f1(direct.afterProvider.p50)})`,
    `load generator CPU per run: direct ${f2(direct.clientCpuMsPerRun)} ms, service ${f2(service.clientCpuMsPerRun)} ms; fake provider CPU per run: ${f2(direct.fakeCpuMsPerRun)} / ${f2(service.fakeCpuMsPerRun)} ms`,
  ];
  rows.push(
    `other processes on the machine took ${f1(direct.otherLoadPct)}% (direct) / ${f1(service.otherLoadPct)}% (service) of its CPU during the measurement${Math.max(direct.otherLoadPct, service.otherLoadPct) > 10 ? '  <-- noisy: figures are not representative' : ''}`,
  );
  const errors = direct.errors + service.errors;
  if (errors > 0)
    rows.push(
      `errors: direct ${direct.errors}, service ${service.errors}: ${[...direct.firstErrors, ...service.firstErrors].join(' | ')}`,
    );
  return `${levelName(level)}: ${direct.runs} direct and ${service.runs} service runs\n${rows.map((row) => `  ${row}`).join('\n')}`;
}

export function targetsTable(checks: TargetCheck[]): string {
  const width = Math.max(...checks.map((check) => check.target.length));
  return checks
    .map((check) => `  ${verdict(check.pass).padEnd(4)}  ${check.target.padEnd(width)}  ${check.measured}`)
    .join('\n');
}

export function markdown(levels: LevelResult[], checks: TargetCheck[], scenario: string): string {
  const lines = [
    `Scenario: ${scenario}. Times in ms from the start of the run's first request; "added" is service minus direct at the same percentile.`,
    '',
    '| c | starts | runs | TTFT p50 direct / service (added) | TTFT p99 direct / service (added) | completion p50 direct / service (ratio) | completion p99 direct / service (ratio) | runs/s direct / service | server CPU ms/run | server peak RSS MB | CPU taken by other processes |',
    '| -: | - | -: | -: | -: | -: | -: | -: | -: | -: | -: |',
    ...levels.map(
      ({ concurrency, starts, direct, service, added, ratio, server }) =>
        `| ${concurrency} | ${concurrency === 1 ? '' : starts} | ${service.runs} | ${f1(direct.ttft.p50)} / ${f1(service.ttft.p50)} (${signed(added.ttftP50)}) | ${f1(direct.ttft.p99)} / ${f1(service.ttft.p99)} (${signed(added.ttftP99)}) | ${f1(direct.done.p50)} / ${f1(service.done.p50)} (${f3(ratio.doneP50)}x) | ${f1(direct.done.p99)} / ${f1(service.done.p99)} (${f3(ratio.doneP99)}x) | ${f1(direct.runsPerSec)} / ${f1(service.runsPerSec)} | ${f2(server.cpuMsPerRun)} | ${f1(server.peakRssMb)} | ${f1(Math.max(direct.otherLoadPct, service.otherLoadPct))}% |`,
    ),
    '',
    '| target | measured | result |',
    '| - | - | - |',
    ...checks.map((check) => `| ${check.target} | ${check.measured} | ${verdict(check.pass)} |`),
  ];
  return lines.join('\n');
}
