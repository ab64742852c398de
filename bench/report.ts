import { f1, f2, f3, int, signed } from './format.ts';
import { idleMarkdown, type IdleResult } from './idle-report.ts';
import type { Summary } from './stats.ts';

export interface ModeResult {
  runs: number;
  /** Runs that did not end with a `result` (the direct side: without content or [DONE]). */
  errors: number;
  /** Of those, failures of the transport: a socket error, an HTTP error status, a stream cut short. */
  transportErrors: number;
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
  /** The most HTTP requests the load generator had in flight at once during the phase. */
  clientPeakInFlight: number;
  /** The most requests the fake provider was answering at once during the phase. */
  fakePeakInFlight: number;
  /** Connections the kernel dropped on full accept queues during the phase (whole machine); NaN where unknown. */
  listenDrops: number;
  /** CPU each of the bench's processes used during the phase, in cores (CPU time / wall time; 0 for the service on the direct side). */
  cores: { service: number; fake: number; client: number };
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
    /** RSS before the level's warm-up wave and after its measured runs (MiB). */
    rssStartMb: number;
    rssMb: number;
    /**
     * Peak RSS during the level, its warm-up wave included (MiB). The service process runs every
     * level in turn and V8 keeps the heap it grew, so a level starts from what the ones before left.
     */
    peakRssMb: number;
  };
  /** The event-log check of this level's service runs (its warm-up wave included), once the service stopped. */
  durability?: GroupDurability;
}

/** One group of service runs checked against the event log, run by run. */
export interface GroupDurability {
  label: string;
  started: number;
  created: number;
  succeeded: number;
  /** Runs whose stream the client read to its `result`. */
  streamedToEnd: number;
  eventsInLog: number;
  framesSeen: number;
  /** Runs whose log holds another number of events than the client was streamed. */
  mismatchedRuns: number;
  pass: boolean;
}

export interface DurabilityCheck {
  runsCreated: number;
  runsSucceeded: number;
  eventsInLog: number;
  framesSeen: number;
  groups: GroupDurability[];
  pass: boolean;
}

export interface TargetCheck {
  target: string;
  measured: string;
  /** undefined: not measured, or a figure reported without a limit (`info`). */
  pass: boolean | undefined;
  info?: boolean;
}

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

const notMeasured = (target: string): TargetCheck => ({ target, measured: 'not measured', pass: undefined });

function durabilityText(durability: GroupDurability): string {
  return (
    `${durability.eventsInLog} events in the log for ${durability.framesSeen} frames streamed; ` +
    `${durability.succeeded}/${durability.started} runs succeeded, ${durability.streamedToEnd} streamed to their result` +
    (durability.mismatchedRuns > 0 ? `, ${durability.mismatchedRuns} runs differ` : '')
  );
}

export function evaluateTargets(
  levels: LevelResult[],
  durability: DurabilityCheck | undefined,
  /** The idle-subscriber measurement, or why it failed. */
  idle?: IdleResult | string,
): TargetCheck[] {
  const at = (concurrency: number) => {
    const found: Array<LevelResult | undefined> = levels.filter((level) => level.concurrency === concurrency);
    return found.length > 0 ? found : [undefined];
  };
  const check = (
    level: LevelResult | undefined,
    target: string,
    value: (l: LevelResult) => number,
    limit: number,
    unit: ' ms' | ' ms/run' | 'x' | ' runs/s' | ' MiB' = ' ms',
    atLeast = false,
  ): TargetCheck => {
    if (!level) return notMeasured(target);
    const v = value(level);
    const shown =
      unit === 'x'
        ? `${f3(v)}x`
        : unit === ' ms'
          ? `${signed(v)} ms`
          : unit === ' ms/run'
            ? `${f2(v)} ms`
            : `${f1(v)}${unit}`;
    return { target, measured: shown, pass: atLeast ? v >= limit : v <= limit };
  };
  const [c1] = at(1);
  const checks: TargetCheck[] = [check(c1, 'c=1: added median TTFT ≤ 3 ms', (l) => l.added.ttftP50, 3)];
  // Issue 31's targets (set for the peer harness, with the default environment: logging at info).
  for (const level of at(100)) {
    const name = level ? levelName(level) : 'c=100';
    checks.push(
      check(level, `${name}: added median TTFT ≤ 15 ms`, (l) => l.added.ttftP50, 15),
      check(level, `${name}: added p99 TTFT ≤ 60 ms`, (l) => l.added.ttftP99, 60),
      check(level, `${name}: median completion ≤ 1.05x direct`, (l) => l.ratio.doneP50, 1.05, 'x'),
      check(level, `${name}: ≥ 185 runs/s`, (l) => l.service.runsPerSec, 185, ' runs/s', true),
      check(level, `${name}: server CPU ≤ 4 ms per run`, (l) => l.server.cpuMsPerRun, 4, ' ms/run'),
      check(level, `${name}: server peak RSS ≤ 220 MiB`, (l) => l.server.peakRssMb, 220, ' MiB'),
      {
        target: `${name}: POST → provider request p50 / p99 (reported)`,
        measured: level
          ? `${f1(level.service.providerRequest.p50)} / ${f1(level.service.providerRequest.p99)} ms (direct ${f1(level.direct.providerRequest.p50)} / ${f1(level.direct.providerRequest.p99)})`
          : 'not measured',
        pass: undefined,
        info: true,
      },
    );
  }
  for (const level of at(1000)) {
    const name = level ? levelName(level) : 'c=1000';
    if (!level) {
      checks.push(notMeasured(`${name}: no errors, no lost events, completion ≤ 1.5x direct`));
      continue;
    }
    const { service, direct } = level;
    checks.push(
      {
        target: `${name}: no errors`,
        measured:
          `service: ${service.errors} runs without a result (${service.transportErrors} transport); ` +
          `direct: ${direct.errors} (${direct.transportErrors} transport)`,
        pass: service.errors === 0 && direct.errors === 0,
      },
      level.durability
        ? {
            target: `${name}: no lost events`,
            measured: durabilityText(level.durability),
            pass: level.durability.pass,
          }
        : { target: `${name}: no lost events`, measured: 'not checked', pass: undefined },
      {
        target: `${name}: completion ≤ 1.5x direct (p50; p99 shown)`,
        measured: `p50 ${f3(level.ratio.doneP50)}x, p99 ${f3(level.ratio.doneP99)}x`,
        pass: level.ratio.doneP50 <= 1.5,
      },
      {
        target: `${name}: server peak RSS (reported)`,
        measured: `${f1(level.server.peakRssMb)} MiB (${f1(level.server.rssStartMb)} MiB before the level)`,
        pass: undefined,
        info: true,
      },
    );
  }
  checks.push(
    durability
      ? {
          target: 'every event durable in SQLite (whole bench)',
          measured: `${durability.eventsInLog} events in the log for ${durability.framesSeen} frames streamed; ${durability.runsSucceeded}/${durability.runsCreated} runs succeeded`,
          pass: durability.pass,
        }
      : notMeasured('every event durable in SQLite (whole bench)'),
  );
  if (typeof idle === 'string') {
    checks.push({ target: 'idle subscribers', measured: `not measured: ${idle}`, pass: undefined });
  } else if (idle) {
    const name = `${idle.requested.toLocaleString('en-US')} idle subscribers`;
    checks.push(
      {
        target: `${name}: all connected, none sent events while idle`,
        measured: `${idle.connected} connected (${idle.connectErrors} errors), ${idle.eventsWhileIdle} events while idle, ${idle.endedWithResult} got their result after the release`,
        pass:
          idle.connected === idle.requested &&
          idle.eventsWhileIdle === 0 &&
          idle.endedWithResult === idle.requested,
      },
      {
        target: `${name}: ≤ 40 KB RSS each`,
        measured: `${f1(idle.rssPerSubscriberKb)} KB (after a full GC: ${f1(idle.rssAfterGcPerSubscriberKb)} KB)`,
        pass: idle.rssPerSubscriberKb <= 40,
      },
      {
        target: `${name}: no heartbeat storms (CPU reported)`,
        measured:
          `${f2(idle.cpuPerHeartbeatRoundMs)} ms per ${idle.heartbeatMs / 1000} s heartbeat round (${f2(idle.cpuPerHeartbeatUs)} µs per subscriber); ` +
          `idle CPU ${f2(idle.cpuWithMsPerSec)} ms/s (without subscribers ${f2(idle.cpuBeforeMsPerSec)}), busiest second ${f1(idle.peakSecondWithMs)} ms`,
        pass: undefined,
        info: true,
      },
    );
  }
  return checks;
}

const verdict = (check: TargetCheck) =>
  check.pass === undefined ? (check.info ? 'info' : 'n/a') : check.pass ? 'PASS' : 'FAIL';

function pad(cells: string[], widths: number[]): string {
  return cells
    .map((cell, index) => (index === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[index] ?? 0)))
    .join('  ');
}

/** Above this many cores, the fake provider or the load generator (one event loop each) may hold a phase back. */
const BUSY_HELPER_CORES = 0.5;

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
    `server CPU per run: ${f2(server.cpuMsPerRun)} ms (user ${f2(server.userMsPerRun)}, system ${f2(server.systemMsPerRun)}; event loop thread ${f2(server.mainThreadCpuMsPerRun)}); RSS ${f1(server.rssStartMb)} MiB before the level, peak ${f1(server.peakRssMb)} MiB during it (warm-up wave included), ${f1(server.rssMb)} MiB at its end`,
    `where the time goes (p50 ms from the run's start): POST answered ${f1(service.ack?.p50 ?? NaN)}, stream open ${f1(service.streamOpen?.p50 ?? NaN)}, provider has the request ${f1(service.providerRequest.p50)} (p99 ${f1(service.providerRequest.p99)}; direct ${f1(direct.providerRequest.p50)} / ${f1(direct.providerRequest.p99)}); provider request → first token at client ${f1(service.afterProvider.p50)} (direct ${f1(direct.afterProvider.p50)})`,
    `load generator CPU per run: direct ${f2(direct.clientCpuMsPerRun)} ms, service ${f2(service.clientCpuMsPerRun)} ms; fake provider CPU per run: ${f2(direct.fakeCpuMsPerRun)} / ${f2(service.fakeCpuMsPerRun)} ms`,
    `CPU used, in cores (direct / service): service ${f2(service.cores.service)}, fake provider ${f2(direct.cores.fake)} / ${f2(service.cores.fake)}, load generator ${f2(direct.cores.client)} / ${f2(service.cores.client)}${Math.max(direct.cores.fake, service.cores.fake, direct.cores.client, service.cores.client) > BUSY_HELPER_CORES ? `  <-- a helper process used more than ${BUSY_HELPER_CORES} of a core: it may limit that side` : ''}`,
    `most requests in flight: load generator ${direct.clientPeakInFlight} / ${service.clientPeakInFlight}, at the fake provider ${direct.fakePeakInFlight} / ${service.fakePeakInFlight} (direct / service); connections dropped on full accept queues: ${int(direct.listenDrops)} / ${int(service.listenDrops)}`,
    `runs without a result: direct ${direct.errors} (transport ${direct.transportErrors}), service ${service.errors} (transport ${service.transportErrors})`,
  ];
  rows.push(
    `other processes on the machine took ${f1(direct.otherLoadPct)}% (direct) / ${f1(service.otherLoadPct)}% (service) of its CPU during the measurement${Math.max(direct.otherLoadPct, service.otherLoadPct) > 10 ? '  <-- noisy: figures are not representative' : ''}`,
  );
  const firstErrors = [...direct.firstErrors, ...service.firstErrors];
  if (firstErrors.length > 0) rows.push(`first errors: ${firstErrors.join(' | ')}`);
  return `${levelName(level)}: ${direct.runs} direct and ${service.runs} service runs\n${rows.map((row) => `  ${row}`).join('\n')}`;
}

export function targetsTable(checks: TargetCheck[]): string {
  const width = Math.max(...checks.map((check) => check.target.length));
  return checks
    .map((check) => `  ${verdict(check).padEnd(4)}  ${check.target.padEnd(width)}  ${check.measured}`)
    .join('\n');
}

export function markdown(
  levels: LevelResult[],
  checks: TargetCheck[],
  scenario: string,
  idle?: IdleResult,
): string {
  const lines = [
    `Scenario: ${scenario}. Times in ms from the start of the run's first request; "added" is service minus direct at the same percentile.`,
  ];
  if (levels.length > 0)
    lines.push(
      '',
      '| c | starts | runs | TTFT p50 direct / service (added) | TTFT p99 direct / service (added) | completion p50 direct / service (ratio) | completion p99 direct / service (ratio) | runs/s direct / service | POST → provider request p50 / p99 direct; service | server CPU ms/run | server RSS MiB before → peak | runs without a result (transport) | events in log / frames streamed | CPU taken by other processes |',
      '| -: | - | -: | -: | -: | -: | -: | -: | -: | -: | -: | -: | -: | -: |',
      ...levels.map(
        ({ concurrency, starts, direct, service, added, ratio, server, durability }) =>
          `| ${concurrency} | ${concurrency === 1 ? '' : starts} | ${service.runs} | ${f1(direct.ttft.p50)} / ${f1(service.ttft.p50)} (${signed(added.ttftP50)}) | ${f1(direct.ttft.p99)} / ${f1(service.ttft.p99)} (${signed(added.ttftP99)}) | ${f1(direct.done.p50)} / ${f1(service.done.p50)} (${f3(ratio.doneP50)}x) | ${f1(direct.done.p99)} / ${f1(service.done.p99)} (${f3(ratio.doneP99)}x) | ${f1(direct.runsPerSec)} / ${f1(service.runsPerSec)} | ${f1(direct.providerRequest.p50)} / ${f1(direct.providerRequest.p99)}; ${f1(service.providerRequest.p50)} / ${f1(service.providerRequest.p99)} | ${f2(server.cpuMsPerRun)} | ${f1(server.rssStartMb)} → ${f1(server.peakRssMb)} | ${service.errors} (${service.transportErrors}) | ${durability ? `${durability.eventsInLog} / ${durability.framesSeen}${durability.pass ? '' : ' (FAIL)'}` : 'n/a'} | ${f1(Math.max(direct.otherLoadPct, service.otherLoadPct))}% |`,
      ),
    );
  if (idle) lines.push('', ...idleMarkdown(idle));
  lines.push(
    '',
    '| target | measured | result |',
    '| - | - | - |',
    ...checks.map((check) => `| ${check.target} | ${check.measured} | ${verdict(check)} |`),
  );
  return lines.join('\n');
}
