import { startChild, type BenchChild } from './children.ts';
import { runLoad } from './load.ts';
import { Bench, levelResult, type Phase } from './measure.ts';
import type { Window } from './profile-summary.ts';
import type { OtlpExports } from './otlp-receiver.ts';
import type { LevelResult, LoadLevel } from './report.ts';
import type { BenchProcesses, OtlpProtocol, ServiceOptions, ServiceUnderTest } from './setup.ts';
import type { TracingLevel, TracingResult } from './tracing-report.ts';

/**
 * The tracing-on side of `npm run bench -- --tracing`: a second service process, configured as the
 * first but with tracing on (`OTEL_EXPORTER_OTLP_ENDPOINT`), exporting to a local OTLP/HTTP receiver
 * in a process of its own. Each level is measured on it right after the tracing-off service, against
 * the same fake provider, so the two CPU-per-run figures sit side by side.
 */
export class TracingSide {
  readonly protocol: OtlpProtocol;
  readonly #receiver: BenchChild;
  readonly #service: ServiceUnderTest;
  readonly #bench: Bench;
  readonly #levels: TracingLevel[] = [];
  /** The measured windows of the traced service (for its profile, with `--profile`). */
  readonly windows: Window[] = [];

  private constructor(protocol: OtlpProtocol, receiver: BenchChild, service: ServiceUnderTest, bench: Bench) {
    this.protocol = protocol;
    this.#receiver = receiver;
    this.#service = service;
    this.#bench = bench;
  }

  static async start(
    processes: BenchProcesses,
    protocol: OtlpProtocol,
    serviceOptions: ServiceOptions,
    specExtras?: Record<string, unknown>,
  ): Promise<TracingSide> {
    const receiver = await startChild('./otlp-receiver-process.ts');
    try {
      const service = await processes.startService({
        ...serviceOptions,
        tracing: { endpoint: receiver.url, protocol },
      });
      const bench = new Bench(processes.fake, service.service, {
        ...service.target,
        ...(specExtras && { specExtras }),
      });
      return new TracingSide(protocol, receiver, service, bench);
    } catch (error) {
      await receiver.stop().catch(() => {});
      throw error;
    }
  }

  get pid(): number {
    return this.#service.service.pid;
  }

  get receiverUrl(): string {
    return this.#receiver.url;
  }

  async warmUp(): Promise<void> {
    this.#bench.group('warm-up');
    await runLoad(5, 20, this.#bench.run('service'));
  }

  /**
   * Measures the level on the traced service, beside `off` (the level as the tracing-off service ran
   * it, with the same direct phase), and what the receiver got meanwhile.
   */
  async measure(
    load: LoadLevel,
    total: number,
    runDurationMs: number,
    direct: Phase,
    off: LevelResult,
  ): Promise<TracingLevel> {
    this.#bench.group(`${load.concurrency}-traced`);
    const before = await this.#exports();
    const phase = await this.#bench.measure('service', load, total, runDurationMs);
    if (phase.window) this.windows.push(phase.window);
    const after = await this.#exports();
    const on = levelResult(load, direct, phase);
    const level: TracingLevel = {
      concurrency: load.concurrency,
      starts: load.starts,
      runs: on.service.runs,
      errors: on.service.errors,
      cpuMsPerRun: { off: off.server.cpuMsPerRun, on: on.server.cpuMsPerRun },
      addedCpuPct: (100 * (on.server.cpuMsPerRun - off.server.cpuMsPerRun)) / off.server.cpuMsPerRun,
      eventLoopCpuMsPerRun: { off: off.server.mainThreadCpuMsPerRun, on: on.server.mainThreadCpuMsPerRun },
      ttftP50: { off: off.service.ttft.p50, on: on.service.ttft.p50 },
      doneP50: { off: off.service.done.p50, on: on.service.done.p50 },
      runsPerSec: { off: off.service.runsPerSec, on: on.service.runsPerSec },
      exports: difference(before, after),
      otherLoadPct: Math.max(off.service.otherLoadPct, on.service.otherLoadPct),
    };
    this.#levels.push(level);
    return level;
  }

  /**
   * Stops the traced service (a clean stop, so the spans it still buffers can be exported), then
   * reads everything the receiver got and stops it.
   */
  async finish(): Promise<TracingResult> {
    await this.#service.stop();
    const total = await this.#exports();
    await this.#receiver.stop();
    return {
      protocol: this.protocol,
      levels: this.#levels,
      tracedRuns: this.#bench.serviceRunsStarted,
      received: total,
    };
  }

  /** Stops whatever still runs (the service is also closed with the bench's other services). */
  async close(): Promise<void> {
    await this.#service.close().catch(() => {});
    await this.#receiver.stop().catch(() => {});
  }

  #exports(): Promise<OtlpExports> {
    return this.#receiver.call<OtlpExports>('exports');
  }
}

function difference(before: OtlpExports, after: OtlpExports): OtlpExports {
  return {
    requests: after.requests - before.requests,
    bytes: after.bytes - before.bytes,
    spans: after.spans - before.spans,
    unreadable: after.unreadable - before.unreadable,
  };
}
