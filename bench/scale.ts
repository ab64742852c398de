/**
 * `npm run bench -- --scale`: the scale-out deployment (PostgreSQL, Redis, one
 * API process and one then two workers, started with the CLI) under 1,000
 * concurrent runs with a streaming subscriber each, against the fake provider
 * in its own process. Reports runs per second, time-to-first-token overhead,
 * delta latency, CPU and memory per active run, memory per idle subscriber, and
 * how throughput changes from one worker to two. With `--tracing`, every process of
 * the cluster exports its spans to a local OTLP/HTTP receiver (its own process):
 * compare its CPU per run with a run without.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { startCluster, type Cluster } from '../test/scale/cluster.ts';
import { openSse } from '../test/support/sse-client.ts';
import { startChild, type BenchChild } from './children.ts';
import type { ServiceTarget } from './clients.ts';
import { processCpuMs } from './machine.ts';
import type { OtlpExports } from './otlp-receiver.ts';
import { provisionWorkspace } from './provision.ts';
import type { OtlpProtocol } from './setup.ts';
import { summarize } from './stats.ts';

interface WaveResult {
  runs: number;
  failed: number;
  seconds: number;
  runsPerSecond: number;
  ttftOverheadP50: number;
  ttftOverheadP99: number;
  deltaGapP99: number;
  peakRssMb: { api: number; workers: number };
  /** CPU the API and worker processes used during the wave, per run (ms). */
  cpuMsPerRun: number;
}

export interface ScaleOptions {
  /** Every process exports its spans over OTLP/HTTP in this protocol to a local receiver. */
  tracing?: OtlpProtocol;
}

const FIRST_CHUNK_MS = 200;

export async function runScaleBenchmark(
  runs: number,
  log: (line: string) => void,
  options: ScaleOptions = {},
): Promise<string> {
  const fake = await startChild('./fake-provider-process.ts');
  const hang = await hangingServer();
  let receiver: BenchChild | undefined;
  let cluster: Cluster | undefined;
  try {
    if (options.tracing) receiver = await startChild('./otlp-receiver-process.ts');
    cluster = await startCluster({
      apis: 1,
      workers: 1,
      leaseMs: 30_000,
      env: {
        LOG_LEVEL: 'warn',
        AGENT_RUNS_WORKER_CONCURRENCY: String(runs),
        ...(receiver &&
          options.tracing && {
            OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
            OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: options.tracing,
          }),
      },
    });
    if (receiver)
      log(`tracing on: every process exports its spans (OTLP ${options.tracing}) to ${receiver.url}`);
    const api = cluster.apis[0];
    if (!api?.baseUrl) throw new Error('no API process');
    const target = await provisionWorkspace(api.baseUrl, cluster.adminToken, fake.url);
    await addHangingModel(api.baseUrl, cluster.adminToken, hang.url);

    // Idle subscribers first, on a fresh API process: after a wave its heap has room to spare.
    log('idle subscribers…');
    const idleKb = await idleSubscriberCost(target, cluster, Math.min(runs, 1000));
    log('warming up (50 runs)…');
    await wave(target, cluster, 50);
    log(`${runs} concurrent runs, one worker…`);
    const baseline = rssMb(cluster);
    const one = await wave(target, cluster, runs);
    log('starting a second worker…');
    cluster.workers.push(await cluster.startWorker('worker2'));
    await wave(target, cluster, 50);
    log(`${runs} concurrent runs, two workers…`);
    const two = await wave(target, cluster, runs);

    const perRunKb =
      ((one.peakRssMb.api + one.peakRssMb.workers - baseline.api - baseline.workers) * 1024) / runs;
    const table = report(runs, one, two, perRunKb, idleKb);
    if (!receiver) return table;
    // The spans still batched are exported at the next scheduled export (OTEL_BSP_SCHEDULE_DELAY, 5 s).
    await sleep(6000);
    const received = await receiver.call<OtlpExports>('exports');
    return `${table}\n${tracingLine(options.tracing ?? 'http/protobuf', received, one.runs + two.runs + 100)}`;
  } finally {
    await cluster?.stop();
    await receiver?.stop();
    await fake.stop();
    hang.server.close();
  }
}

function tracingLine(protocol: OtlpProtocol, received: OtlpExports, runs: number): string {
  return (
    `Tracing on (OTLP ${protocol} to a local receiver): it got ${received.spans} spans in ${received.requests} export requests ` +
    `(${(received.bytes / 1024).toFixed(1)} KiB) for ${runs} runs and the idle subscribers' run` +
    (received.unreadable > 0 ? `, ${received.unreadable} unreadable` : '') +
    (received.requests === 0 ? '  <-- no span arrived: the processes did not export' : '.')
  );
}

async function wave(target: ServiceTarget, cluster: Cluster, runs: number): Promise<WaveResult> {
  const headers = { authorization: `Bearer ${target.apiKey}` };
  let peak = rssMb(cluster);
  const sampler = setInterval(() => {
    const now = rssMb(cluster);
    peak = { api: Math.max(peak.api, now.api), workers: Math.max(peak.workers, now.workers) };
  }, 250);
  const ttft: number[] = [];
  const gaps: number[] = [];
  let failed = 0;
  const cpuBefore = clusterCpuMs(cluster);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: runs }, async () => {
      const t0 = performance.now();
      const response = await fetch(`${target.baseUrl}${target.ws}/agent-runs`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ systemPrompt: 's', prompt: 'bench' }),
      });
      if (response.status !== 202) {
        failed++;
        return;
      }
      const { streamUrl } = (await response.json()) as { streamUrl: string };
      const stream = await openSse(`${target.baseUrl}${streamUrl}`, headers);
      let last: number | undefined;
      let terminal = '';
      for await (const frame of stream.frames) {
        const now = performance.now();
        if (frame.data.type === 'assistant_delta') {
          if (last === undefined) ttft.push(now - t0 - FIRST_CHUNK_MS);
          else gaps.push(now - last);
          last = now;
        }
        terminal = frame.data.type;
      }
      if (terminal !== 'result') failed++;
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuMs = clusterCpuMs(cluster) - cpuBefore;
  clearInterval(sampler);
  const first = summarize(ttft);
  return {
    runs,
    failed,
    seconds,
    runsPerSecond: (runs - failed) / seconds,
    ttftOverheadP50: first.p50,
    ttftOverheadP99: first.p99,
    deltaGapP99: summarize(gaps).p99,
    peakRssMb: peak,
    cpuMsPerRun: cpuMs / runs,
  };
}

/** CPU used so far by the cluster's running API and worker processes (ms). */
function clusterCpuMs(cluster: Cluster): number {
  let total = 0;
  for (const process of [...cluster.apis, ...cluster.workers]) {
    if (process.child.pid !== undefined) total += processCpuMs(process.child.pid);
  }
  return total;
}

/** Opens `count` streams on a run whose model never answers (so they stay idle) and weighs the API process. */
async function idleSubscriberCost(target: ServiceTarget, cluster: Cluster, count: number): Promise<number> {
  const headers = { authorization: `Bearer ${target.apiKey}` };
  const response = await fetch(`${target.baseUrl}${target.ws}/agent-runs`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ systemPrompt: 's', prompt: 'wait', modelId: 'hang/never' }),
  });
  const { runId, streamUrl } = (await response.json()) as { runId: string; streamUrl: string };
  await sleep(1000);
  const before = rssMb(cluster).api;
  const streams = await Promise.all(
    Array.from({ length: count }, () => openSse(`${target.baseUrl}${streamUrl}`, headers)),
  );
  await sleep(2000);
  const after = rssMb(cluster).api;
  await fetch(`${target.baseUrl}${target.ws}/agent-runs/${runId}/cancel`, { method: 'POST', headers });
  for (const stream of streams) stream.close();
  return ((after - before) * 1024) / count;
}

function report(runs: number, one: WaveResult, two: WaveResult, perRunKb: number, idleKb: number): string {
  const row = (label: string, wave: WaveResult) =>
    `| ${label} | ${wave.runs} | ${wave.failed} | ${wave.seconds.toFixed(1)} | ${wave.runsPerSecond.toFixed(1)} | ` +
    `${wave.ttftOverheadP50.toFixed(1)} / ${wave.ttftOverheadP99.toFixed(1)} | ${wave.deltaGapP99.toFixed(1)} | ` +
    `${wave.peakRssMb.api.toFixed(0)} / ${wave.peakRssMb.workers.toFixed(0)} | ${wave.cpuMsPerRun.toFixed(2)} |`;
  return [
    `Scale-out: PostgreSQL + Redis, one API process, workers as shown, ${runs} runs started at once, each with a streaming subscriber; fake provider in its own process (first chunk after 200 ms, then 50 chunks 5 ms apart).`,
    '',
    '| workers | runs | failed | wall s | runs/s | TTFT overhead p50 / p99 ms | p99 gap between deltas ms (provider: 5) | peak RSS MB API / workers | CPU ms per run (API + workers) |',
    '| -: | -: | -: | -: | -: | -: | -: | -: | -: |',
    row('1', one),
    row('2', two),
    '',
    `Memory per active run (API + worker, peak over baseline): ${perRunKb.toFixed(0)} KB. Memory per idle SSE subscriber (API): ${idleKb.toFixed(1)} KB.`,
    `Throughput from one worker to two: ${(two.runsPerSecond / one.runsPerSecond).toFixed(2)}x.`,
  ].join('\n');
}

function rssMb(cluster: Cluster): { api: number; workers: number } {
  const kb = (pid: number | undefined) => {
    if (!pid) return 0;
    try {
      return (
        Number(
          execFileSync('ps', ['-o', 'rss=', '-p', String(pid)])
            .toString()
            .trim(),
        ) || 0
      );
    } catch {
      return 0;
    }
  };
  const api = cluster.apis.reduce((sum, process) => sum + kb(process.child.pid), 0) / 1024;
  const workers = cluster.workers.reduce((sum, process) => sum + kb(process.child.pid), 0) / 1024;
  return { api, workers };
}

async function addHangingModel(baseUrl: string, adminToken: string, hangUrl: string): Promise<void> {
  await fetch(`${baseUrl}/admin/v1/workspaces/bench/providers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      provider: 'hang',
      api: 'openai-chat',
      baseUrl: hangUrl,
      models: [{ vendorModelId: 'never' }],
    }),
  });
}

/** A loopback TCP server that accepts connections and never answers: a model call that stays pending. */
async function hangingServer(): Promise<{ server: Server; url: string }> {
  const server = createServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { server, url: `http://127.0.0.1:${port}/v1` };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
