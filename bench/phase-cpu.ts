/**
 * Splits the service's CPU per run into the start of a run (POST, stream GET,
 * worker start up to the provider request) and its streaming part (50 deltas,
 * the event log, SSE, the terminal event). Runs go in waves started together;
 * the provider answers its first chunk only after 200 ms, so a CPU reading at
 * 150 ms separates the two phases.
 * Usage: node bench/phase-cpu.ts [--waves N] [--sizes 1,10,50] [--profile] [--model-threads N]
 * (`--profile`: the service runs under --cpu-prof; each phase's samples are summarized apart.)
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { summarizeProfile, threadProfiles, type Window } from './profile-summary.ts';
import type { ChildUsage } from './ipc.ts';
import { runLoad } from './load.ts';
import { Bench } from './measure.ts';
import { cpuMs, sleep, startBenchProcesses } from './setup.ts';
import { summarize } from './stats.ts';

const SPLIT_AT_MS = 150;

const { values: args } = parseArgs({
  options: {
    waves: { type: 'string', default: '10' },
    sizes: { type: 'string', default: '1,10,50' },
    profile: { type: 'boolean', default: false },
    'model-threads': { type: 'string' },
  },
});
const waves = Number(args.waves);
const sizes = args.sizes.split(',').map(Number);

const profileDir = args.profile ? mkdtempSync(join(os.tmpdir(), 'agent-runs-bench-profile-')) : undefined;
const startWindows: Window[] = [];
const streamingWindows: Window[] = [];
const processes = await startBenchProcesses({
  ...(profileDir && { profileDir }),
  ...(args['model-threads'] !== undefined && { modelThreads: Number(args['model-threads']) }),
});
try {
  const { fake, service, target } = processes;
  const bench = new Bench(fake, service, target);
  await runLoad(10, 40, bench.run('service'));
  console.log(
    `service CPU per run by phase (${waves} waves per size; split ${SPLIT_AT_MS} ms after a wave starts)`,
  );
  for (const size of sizes) {
    let start = 0;
    let streaming = 0;
    let startOnLoop = 0;
    let streamingOnLoop = 0;
    const reached: number[] = [];
    for (let wave = 0; wave < waves; wave++) {
      await fake.call('timings');
      const u0 = await service.call<ChildUsage>('usage');
      const runs = Promise.all(Array.from({ length: size }, bench.run('service')));
      await sleep(SPLIT_AT_MS);
      const u1 = await service.call<ChildUsage>('usage');
      const samples = await runs;
      const u2 = await service.call<ChildUsage>('usage');
      const stamps = await fake.call<Record<string, number>>('timings');
      startWindows.push({ fromUs: u0.hrtimeUs, toUs: u1.hrtimeUs });
      streamingWindows.push({ fromUs: u1.hrtimeUs, toUs: u2.hrtimeUs });
      for (const sample of samples) reached.push((stamps[sample.marker] ?? NaN) - sample.startWall);
      const a = cpuMs(u0.cpu, u1.cpu);
      const b = cpuMs(u1.cpu, u2.cpu);
      start += a.user + a.system;
      streaming += b.user + b.system;
      startOnLoop += u1.mainThreadCpuMs - u0.mainThreadCpuMs;
      streamingOnLoop += u2.mainThreadCpuMs - u1.mainThreadCpuMs;
    }
    const n = size * waves;
    const reach = summarize(reached);
    console.log(
      `  wave of ${String(size).padStart(3)}: start ${(start / n).toFixed(2)} ms/run (event loop thread ${(startOnLoop / n).toFixed(2)}), ` +
        `streaming ${(streaming / n).toFixed(2)} ms/run (event loop thread ${(streamingOnLoop / n).toFixed(2)}); ` +
        `provider request reached after ${reach.p50.toFixed(1)} ms p50, ${reach.max.toFixed(1)} ms max` +
        (reach.max > SPLIT_AT_MS ? '  <-- some starts ran past the split: start is underestimated' : ''),
    );
  }
  if (profileDir) {
    await processes.stopService();
    for (const { thread, path } of threadProfiles(profileDir)) {
      console.log(`\n${thread.toUpperCase()}, START PHASE\n${summarizeProfile(path, startWindows)}`);
      console.log(`\n${thread.toUpperCase()}, STREAMING PHASE\n${summarizeProfile(path, streamingWindows)}`);
    }
  }
} finally {
  await processes.close();
}
