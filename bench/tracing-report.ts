import { f1, f2, int, signed } from './format.ts';
import type { OtlpExports } from './otlp-receiver.ts';
import { levelName, type LoadLevel, type TargetCheck } from './report.ts';
import type { OtlpProtocol } from './setup.ts';

/** One level measured with tracing off (the main service) and on (a second service exporting spans). */
export interface TracingLevel extends LoadLevel {
  /** Runs measured on the traced service, and those of them that did not end with a `result`. */
  runs: number;
  errors: number;
  /** The service's CPU per run (ms) without tracing and with it, and what tracing adds (%). */
  cpuMsPerRun: { off: number; on: number };
  addedCpuPct: number;
  /** Of which the event loop's thread (the rest: model threads, V8's GC helpers, the kernel for the process). */
  eventLoopCpuMsPerRun: { off: number; on: number };
  ttftP50: { off: number; on: number };
  doneP50: { off: number; on: number };
  runsPerSec: { off: number; on: number };
  /** What the receiver got while the traced level ran (a batch still buffered at its end comes later). */
  exports: OtlpExports;
  /** The most of the machine's CPU other processes took during either side (%). */
  otherLoadPct: number;
}

export interface TracingResult {
  protocol: OtlpProtocol;
  levels: TracingLevel[];
  /** Runs started on the traced service, warm-ups included. */
  tracedRuns: number;
  /** Everything the receiver got, read after the traced service stopped. */
  received: OtlpExports;
}

/** The issue's target: tracing on adds at most 10 % of CPU per run at c=100. */
const ADDED_CPU_LIMIT_PCT = 10;

/** One line per level, printed as the bench goes. */
export function tracingLine(level: TracingLevel, protocol: OtlpProtocol): string {
  const { cpuMsPerRun, exports } = level;
  return (
    `tracing on (OTLP ${protocol}): service CPU per run ${f2(cpuMsPerRun.on)} ms vs ${f2(cpuMsPerRun.off)} ms off ` +
    `(${signed(level.addedCpuPct)}%; event loop thread ${f2(level.eventLoopCpuMsPerRun.on)} vs ${f2(level.eventLoopCpuMsPerRun.off)} ms); median TTFT ${f1(level.ttftP50.on)} vs ${f1(level.ttftP50.off)} ms; ` +
    `${level.runs} runs, ${level.errors} errors; the receiver got ${exports.spans} spans in ${exports.requests} requests ` +
    `(${f1(exports.bytes / 1024)} KiB${exports.unreadable > 0 ? `, ${exports.unreadable} unreadable` : ''})`
  );
}

/** Everything the receiver got, with a warning when nothing came (tracing not built, or not turned on). */
export function tracingSummary(result: TracingResult): string {
  const { received, tracedRuns } = result;
  const perRun = received.spans / Math.max(tracedRuns, 1);
  const summary =
    `tracing: the local OTLP receiver got ${received.spans} spans in ${received.requests} export requests ` +
    `(${f1(received.bytes / 1024)} KiB) for ${tracedRuns} traced runs (${f1(perRun)} spans per run)`;
  return received.requests === 0
    ? `${summary}  <-- no span arrived: the service did not export (is tracing built and on?)`
    : summary;
}

/** The tracing table for docs/performance.md. */
export function tracingMarkdown(result: TracingResult): string {
  const rows = result.levels.map(
    (level) =>
      `| ${level.concurrency} | ${level.concurrency === 1 ? '' : level.starts} | ${level.runs} | ${f2(level.cpuMsPerRun.off)} | ${f2(level.cpuMsPerRun.on)} | ${signed(level.addedCpuPct)}% | ${f1(level.ttftP50.off)} / ${f1(level.ttftP50.on)} | ${f1(level.doneP50.off)} / ${f1(level.doneP50.on)} | ${f1(level.runsPerSec.off)} / ${f1(level.runsPerSec.on)} | ${level.exports.spans} / ${level.exports.requests} | ${level.errors} | ${f1(level.otherLoadPct)}% |`,
  );
  return [
    `Tracing off / on (OTLP \`${result.protocol}\` to a local receiver), ${result.received.spans} spans received in all for ${result.tracedRuns} traced runs:`,
    '',
    '| concurrency | starts | runs | service CPU ms/run off | on | added CPU | median TTFT ms off / on | median completion ms off / on | runs/s off / on | spans / export requests received | errors (on) | CPU taken by other processes |',
    '| -: | :- | -: | -: | -: | -: | -: | -: | -: | -: | -: | -: |',
    ...rows,
  ].join('\n');
}

/** The added-CPU target at c=100, and whether spans arrived at all. */
export function tracingTargets(result: TracingResult): TargetCheck[] {
  const checks: TargetCheck[] = result.levels
    .filter((level) => level.concurrency === 100)
    .map((level) => ({
      target: `${levelName(level)}: tracing on adds ≤ ${ADDED_CPU_LIMIT_PCT}% CPU per run`,
      measured: `${signed(level.addedCpuPct)}% (${f2(level.cpuMsPerRun.off)} → ${f2(level.cpuMsPerRun.on)} ms)`,
      pass: level.addedCpuPct <= ADDED_CPU_LIMIT_PCT,
    }));
  checks.push({
    target: 'tracing on: spans reach the OTLP receiver',
    measured: `${int(result.received.spans)} spans in ${result.received.requests} requests`,
    pass: result.received.spans > 0,
  });
  return checks;
}
