import type { BenchChild } from './children.ts';
import {
  directRun,
  serviceRun,
  takeClientPeak,
  type RunRecord,
  type RunSample,
  type ServiceTarget,
} from './clients.ts';
import type { ChildUsage } from './ipc.ts';
import { runLoad } from './load.ts';
import { cpuCount, listenDrops, machineBusyMs } from './machine.ts';
import type { Window } from './profile-summary.ts';
import type { LevelResult, LoadLevel, ModeResult } from './report.ts';
import { cpuMs } from './setup.ts';
import { summarize } from './stats.ts';

export type Side = 'direct' | 'service';

export interface Phase {
  mode: ModeResult;
  samples: RunSample[];
  /** Service side only: its CPU over the phase, its memory at the end, the phase in its profile clock. */
  serverCpu?: { user: number; system: number };
  /** Service side only: CPU of its event loop's thread over the phase (ms). */
  mainThreadCpuMs?: number;
  serverUsage?: ChildUsage;
  /** Service side only: its usage before the level's warm-up wave. */
  serverStart?: ChildUsage;
  window?: Window;
}

/** The service runs one part of the bench started (a level, a warm-up), for the event-log check. */
export interface RunGroup {
  label: string;
  runs: RunRecord[];
}

/** Runs both sides against one fake provider and records what the service was asked to do. */
export class Bench {
  readonly #fake: BenchChild;
  readonly #service: BenchChild;
  readonly #target: ServiceTarget;
  /** Service runs started (warm-ups included) and frames streamed by the successful ones. */
  serviceRunsStarted = 0;
  framesSeen = 0;
  /** Every service run, by the part of the bench that started it (`group`). */
  readonly groups: RunGroup[] = [];
  #group: RunGroup | undefined;

  constructor(fake: BenchChild, service: BenchChild, target: ServiceTarget) {
    this.#fake = fake;
    this.#service = service;
    this.#target = target;
  }

  /** Service runs started from now on are recorded under `label`. */
  group(label: string): void {
    this.#group = this.groups.find((group) => group.label === label);
    if (this.#group) return;
    this.#group = { label, runs: [] };
    this.groups.push(this.#group);
  }

  run(side: Side): () => Promise<RunSample> {
    if (side === 'direct') return () => directRun({ baseUrl: this.#fake.url });
    return async () => {
      this.serviceRunsStarted++;
      const record: RunRecord = { frames: 0, complete: false };
      if (!this.#group) this.group('other');
      this.#group?.runs.push(record);
      const sample = await serviceRun(this.#target, record);
      this.framesSeen += sample.frames;
      return sample;
    };
  }

  /**
   * One side at one level: a warm-up wave, then `total` measured runs with CPU readings around them.
   * `spreadMs`: spread the clients' first starts over that long (see runLoad).
   */
  async measure(side: Side, level: LoadLevel, total: number, spreadMs: number): Promise<Phase> {
    const { concurrency } = level;
    const spread = level.starts === 'spread' ? spreadMs : 0;
    const run = this.run(side);
    // The service's memory is read over the whole level, its warm-up wave included: RSS before it, peak since.
    const serverStart =
      side === 'service'
        ? (await this.#service.call('reset-peak'), await this.#service.call<ChildUsage>('usage'))
        : undefined;
    await runLoad(concurrency, Math.max(3, concurrency), run, spread);
    await this.#fake.call('timings'); // forget the warm-up's stamps
    await this.#fake.call('peaks');
    takeClientPeak();
    const fake0 = await this.#fake.call<ChildUsage>('usage');
    const server0 = side === 'service' ? await this.#service.call<ChildUsage>('usage') : undefined;
    const client0 = process.cpuUsage();
    const machine0 = machineBusyMs();
    const drops0 = listenDrops();
    const result = await runLoad(concurrency, total, run, spread);
    const drops1 = listenDrops();
    const machine1 = machineBusyMs();
    const client1 = process.cpuUsage();
    const clientPeakInFlight = takeClientPeak();
    const server1 = side === 'service' ? await this.#service.call<ChildUsage>('usage') : undefined;
    const fake1 = await this.#fake.call<ChildUsage>('usage');
    const fakePeakInFlight = await this.#fake.call<number>('peaks');
    const stamps = await this.#fake.call<Record<string, number>>('timings');

    const { samples } = result;
    const providerRequest: number[] = [];
    const afterProvider: number[] = [];
    for (const sample of samples) {
      const received = stamps[sample.marker];
      if (received === undefined) continue;
      providerRequest.push(received - sample.startWall);
      afterProvider.push(sample.ttftMs - (received - sample.startWall));
    }
    const runs = Math.max(samples.length, 1);
    const client = cpuMs(client0, client1);
    const fake = cpuMs(fake0.cpu, fake1.cpu);
    const server = server0 && server1 ? cpuMs(server0.cpu, server1.cpu) : { user: 0, system: 0 };
    const ours = client.user + client.system + fake.user + fake.system + server.user + server.system;
    const otherLoadPct =
      machine0 === undefined || machine1 === undefined
        ? NaN
        : Math.max(0, (100 * (machine1 - machine0 - ours)) / (result.wallMs * cpuCount));
    const mode: ModeResult = {
      runs: samples.length,
      errors: result.errors.length,
      transportErrors: result.errors.filter((error) => error.kind === 'transport').length,
      firstErrors: [...new Set(result.errors.map((error) => `${error.kind}: ${error.message}`))].slice(0, 3),
      ttft: summarize(samples.map((sample) => sample.ttftMs)),
      done: summarize(samples.map((sample) => sample.doneMs)),
      runsPerSec: (samples.length * 1000) / result.wallMs,
      providerRequest: summarize(providerRequest),
      afterProvider: summarize(afterProvider),
      ...(side === 'service' && {
        ack: summarize(samples.map((sample) => sample.ackMs ?? NaN)),
        streamOpen: summarize(samples.map((sample) => sample.streamOpenMs ?? NaN)),
      }),
      clientCpuMsPerRun: (client.user + client.system) / runs,
      fakeCpuMsPerRun: (fake.user + fake.system) / runs,
      clientPeakInFlight,
      fakePeakInFlight,
      listenDrops: drops0 === undefined || drops1 === undefined ? NaN : drops1 - drops0,
      cores: {
        service: (server.user + server.system) / result.wallMs,
        fake: (fake.user + fake.system) / result.wallMs,
        client: (client.user + client.system) / result.wallMs,
      },
      otherLoadPct,
    };
    if (!server0 || !server1) return { mode, samples };
    return {
      mode,
      samples,
      serverCpu: server,
      mainThreadCpuMs: server1.mainThreadCpuMs - server0.mainThreadCpuMs,
      serverUsage: server1,
      ...(serverStart && { serverStart }),
      window: { fromUs: server0.hrtimeUs, toUs: server1.hrtimeUs },
    };
  }
}

/** Side by side: added ms and ratios per percentile, and the service's CPU and memory per run. */
export function levelResult(level: LoadLevel, direct: Phase, service: Phase): LevelResult {
  const d = direct.mode;
  const s = service.mode;
  const cpu = service.serverCpu ?? { user: NaN, system: NaN };
  const runs = Math.max(s.runs, 1);
  const usage = service.serverUsage;
  return {
    ...level,
    direct: d,
    service: s,
    added: {
      ttftP50: s.ttft.p50 - d.ttft.p50,
      ttftP99: s.ttft.p99 - d.ttft.p99,
      doneP50: s.done.p50 - d.done.p50,
      doneP99: s.done.p99 - d.done.p99,
    },
    ratio: {
      ttftP50: s.ttft.p50 / d.ttft.p50,
      ttftP99: s.ttft.p99 / d.ttft.p99,
      doneP50: s.done.p50 / d.done.p50,
      doneP99: s.done.p99 / d.done.p99,
    },
    server: {
      cpuMsPerRun: (cpu.user + cpu.system) / runs,
      mainThreadCpuMsPerRun: (service.mainThreadCpuMs ?? NaN) / runs,
      userMsPerRun: cpu.user / runs,
      systemMsPerRun: cpu.system / runs,
      rssStartMb: (service.serverStart?.rss ?? NaN) / 2 ** 20,
      rssMb: (usage?.rss ?? NaN) / 2 ** 20,
      // The peak of the level (VmHWM reset before its warm-up wave); the process's peak so far where /proc is not there.
      peakRssMb:
        (Number.isFinite(usage?.peakRssKb) ? (usage?.peakRssKb ?? NaN) : (usage?.maxRss ?? NaN)) / 1024,
    },
  };
}
