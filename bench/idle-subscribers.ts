/**
 * Idle SSE subscribers on one service process: `subscribers` streams of a few runs whose model
 * call is held at the fake provider after its first chunk, so every stream has been sent one event
 * (replayed from the log once the stream was subscribed) and then nothing but heartbeats. Measures
 * the service's RSS per subscriber, its CPU while they idle, and what the heartbeats cost.
 *
 * How it keeps to what it says:
 * - a fresh service process (its own SQLite file) with nothing else to do: no other load's heap;
 * - a subscriber counts as connected only once the run's first event reached it: its stream was
 *   subscribed and its replay read, not just its headers sent; the service's open files are counted
 *   too, and event frames arriving afterwards (there should be none until the release) are counted;
 * - the CPU windows are whole heartbeat intervals, opened one interval after the last subscriber
 *   connected (a subscriber's first tick follows the replayed event, so it sends nothing), and the
 *   heartbeats the subscribers received in the window are counted against the number expected;
 * - the same readings without subscribers (before they open) are subtracted;
 * - at the end the held model calls are released: every run ends with its result, which every
 *   subscriber must receive before the service closes its stream.
 */
import http, { type IncomingMessage } from 'node:http';
import type { BenchChild } from './children.ts';
import { readSse, readText, RunFailure, send, type ServiceTarget } from './clients.ts';
import type { ChildUsage } from './ipc.ts';
import { cpuCount, machineBusyMs, openFiles, openFilesLimit } from './machine.ts';
import type { IdleResult } from './idle-report.ts';
import type { BenchProcesses } from './setup.ts';
import { cpuMs, sleep } from './setup.ts';
import { eventType } from './sse-reader.ts';

export interface IdleOptions {
  subscribers: number;
  /** Runs held at the provider; the subscribers are spread evenly over them. */
  runs: number;
  heartbeatMs: number;
  /** Heartbeat intervals in the CPU window with subscribers. */
  ticks: number;
  log: (line: string) => void;
}

/** Streams being opened at once (each until the run's first event reached it). */
const OPEN_CONCURRENCY = 200;
/** A stream that has not delivered the run's first event within this long counts as failed. */
const CONNECT_CAP_MS = 30_000;
/** How long the subscribers get to receive their result once the held calls are released. */
const CLOSE_CAP_MS = 120_000;
/** File descriptors each process needs beside the subscribers' sockets. */
const SPARE_FILES = 512;

interface Subscriber {
  connected: boolean;
  heartbeats: number;
  /** Event frames after the first one. */
  laterEvents: number;
  result: boolean;
  ended: Promise<void>;
  response?: IncomingMessage;
}

function checkFileLimits(needed: number, servicePid: number): void {
  for (const [who, limit] of [
    ['the load generator', openFilesLimit('self')],
    ['the service', openFilesLimit(servicePid)],
  ] as const) {
    if (limit !== undefined && limit < needed)
      throw new Error(
        `${who} may open ${limit} files (ulimit -n) but the idle-subscriber measurement needs about ${needed}: ` +
          `raise the limit (ulimit -n ${needed}) or pass a smaller --idle`,
      );
  }
}

interface CpuWindow {
  msPerSec: number;
  peakSecondMs: number;
  /** Share of the machine's CPU (all cores) that processes other than the bench's three took meanwhile. */
  otherLoadPct: number;
}

/** The service's CPU over `ms`, read every second: mean ms per second and the busiest second. */
async function cpuWindow(service: BenchChild, fake: BenchChild, ms: number): Promise<CpuWindow> {
  const fake0 = await fake.call<ChildUsage>('usage');
  const client0 = process.cpuUsage();
  const machine0 = machineBusyMs();
  const first = await service.call<ChildUsage>('usage');
  const started = performance.now();
  let previous = first;
  let peakSecondMs = 0;
  for (let second = 1; second * 1000 <= ms; second++) {
    await sleep(Math.max(0, started + second * 1000 - performance.now()));
    const now = await service.call<ChildUsage>('usage');
    const cpu = cpuMs(previous.cpu, now.cpu);
    peakSecondMs = Math.max(peakSecondMs, cpu.user + cpu.system);
    previous = now;
  }
  const elapsed = performance.now() - started;
  const machine1 = machineBusyMs();
  const client = cpuMs(client0, process.cpuUsage());
  const fakeCpu = cpuMs(fake0.cpu, (await fake.call<ChildUsage>('usage')).cpu);
  const total = cpuMs(first.cpu, previous.cpu);
  const ours = total.user + total.system + client.user + client.system + fakeCpu.user + fakeCpu.system;
  const otherLoadPct =
    machine0 === undefined || machine1 === undefined
      ? NaN
      : Math.max(0, (100 * (machine1 - machine0 - ours)) / (elapsed * cpuCount));
  return { msPerSec: ((total.user + total.system) * 1000) / elapsed, peakSecondMs, otherLoadPct };
}

/** Opens one stream; resolves once the run's first event arrived (the subscriber then stays open). */
function subscribe(
  target: ServiceTarget,
  streamUrl: string,
  subscriber: Subscriber,
  agent: http.Agent,
): Promise<void> {
  const auth = `Bearer ${target.apiKey}`;
  return new Promise<void>((resolveConnected, rejectConnected) => {
    const timer = setTimeout(() => {
      rejectConnected(new RunFailure('transport', `no event within ${CONNECT_CAP_MS} ms`));
      subscriber.response?.destroy();
    }, CONNECT_CAP_MS);
    const connected = () => {
      clearTimeout(timer);
      resolveConnected();
    };
    const failed = (error: unknown) => {
      clearTimeout(timer);
      rejectConnected(error);
    };
    subscriber.ended = send(
      `${target.baseUrl}${streamUrl}`,
      'GET',
      { accept: 'text/event-stream', authorization: auth },
      undefined,
      agent,
    ).then(async (response) => {
      subscriber.response = response;
      if (response.statusCode !== 200)
        throw new RunFailure('transport', `stream ${response.statusCode} ${await readText(response)}`);
      await readSse(response, (block) => {
        const type = eventType(block);
        if (type === undefined) {
          if (block.startsWith(': heartbeat')) subscriber.heartbeats++;
          return;
        }
        if (!subscriber.connected) {
          // The held run's first event; anything else means the run did not hold (it failed or ended).
          if (type !== 'assistant_delta') {
            failed(
              new RunFailure('no-result', `first event was ${type}, not the held run's assistant_delta`),
            );
            return;
          }
          subscriber.connected = true;
          connected();
        } else {
          subscriber.laterEvents++;
        }
        if (type === 'result') subscriber.result = true;
      });
    });
    subscriber.ended.then(
      () => failed(new RunFailure('no-result', 'stream ended before the first event')),
      failed,
    );
  });
}

export async function measureIdleSubscribers(
  processes: BenchProcesses,
  options: IdleOptions,
): Promise<IdleResult> {
  const { subscribers: count, runs, heartbeatMs, ticks, log } = options;
  const sut = await processes.startService({ heartbeatMs, exposeGc: true, holdProvider: true });
  const { service, target } = sut;
  const subscribers: Subscriber[] = [];
  // A client without keep-alive: one socket per stream, closed once the service ends it.
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity, maxTotalSockets: Infinity });
  try {
    checkFileLimits(count + SPARE_FILES, service.pid);
    log(
      `idle subscribers: service pid ${service.pid}; ${runs} runs held at the provider after their first chunk`,
    );
    const streamUrls: string[] = [];
    for (let index = 0; index < runs; index++) {
      const created = await send(
        `${target.baseUrl}${target.ws}/agent-runs`,
        'POST',
        { 'content-type': 'application/json', authorization: `Bearer ${target.apiKey}` },
        JSON.stringify({ systemPrompt: 'Be brief.', prompt: `idle ${index}`, modelId: 'hold/held' }),
      );
      const body = await readText(created);
      if (created.statusCode !== 202) throw new Error(`idle subscribers: POST ${created.statusCode} ${body}`);
      streamUrls.push((JSON.parse(body) as { streamUrl: string }).streamUrl);
    }
    // One probe per run: the run holds once its first event is in the log and streamed.
    const probes = streamUrls.map((url) => {
      const probe: Subscriber = {
        connected: false,
        heartbeats: 0,
        laterEvents: 0,
        result: false,
        ended: Promise.resolve(),
      };
      return { probe, connected: subscribe(target, url, probe, agent) };
    });
    await Promise.all(probes.map((entry) => entry.connected));
    for (const { probe } of probes) probe.response?.destroy();
    await sleep(2000);

    const before = await service.call<ChildUsage>('usage');
    const beforeGc = await service.call<ChildUsage>('gc');
    const fdsBefore = openFiles(service.pid) ?? NaN;
    log(`idle subscribers: service CPU without subscribers over ${heartbeatMs / 1000} s…`);
    const without = await cpuWindow(service, processes.fake, heartbeatMs);

    log(`idle subscribers: opening ${count} streams…`);
    const errors: string[] = [];
    const openStart = performance.now();
    const open0 = await service.call<ChildUsage>('usage');
    let next = 0;
    const opener = async () => {
      while (next < count) {
        const index = next++;
        const subscriber: Subscriber = {
          connected: false,
          heartbeats: 0,
          laterEvents: 0,
          result: false,
          ended: Promise.resolve(),
        };
        subscribers.push(subscriber);
        try {
          await subscribe(target, streamUrls[index % runs] as string, subscriber, agent);
        } catch (error) {
          errors.push(error instanceof Error ? error.message : String(error));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(OPEN_CONCURRENCY, count) }, opener));
    const open1 = await service.call<ChildUsage>('usage');
    const openSeconds = (performance.now() - openStart) / 1000;
    const connected = subscribers.filter((subscriber) => subscriber.connected).length;
    const openCpu = cpuMs(open0.cpu, open1.cpu);
    log(
      `idle subscribers: ${connected} connected in ${openSeconds.toFixed(1)} s (${errors.length} errors); settling one heartbeat interval…`,
    );

    await sleep(heartbeatMs);
    const withSubscribers = await service.call<ChildUsage>('usage');
    const withGc = await service.call<ChildUsage>('gc');
    const fdsWith = openFiles(service.pid) ?? NaN;
    const heartbeats0 = subscribers.reduce((sum, subscriber) => sum + subscriber.heartbeats, 0);
    const client0 = process.cpuUsage();
    const windowMs = ticks * heartbeatMs;
    log(`idle subscribers: service CPU with ${connected} subscribers over ${windowMs / 1000} s…`);
    const withWindow = await cpuWindow(service, processes.fake, windowMs);
    const client = cpuMs(client0, process.cpuUsage());
    const heartbeats = subscribers.reduce((sum, subscriber) => sum + subscriber.heartbeats, 0) - heartbeats0;
    const eventsWhileIdle = subscribers.reduce((sum, subscriber) => sum + subscriber.laterEvents, 0);

    log('idle subscribers: releasing the held model calls…');
    const closeStart = performance.now();
    await processes.fake.call('release');
    let capTimer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(subscribers.map((subscriber) => subscriber.ended)),
      new Promise<void>((resolve) => (capTimer = setTimeout(resolve, CLOSE_CAP_MS))),
    ]);
    clearTimeout(capTimer);
    const closeSeconds = (performance.now() - closeStart) / 1000;
    const endedWithResult = subscribers.filter((subscriber) => subscriber.result).length;

    const n = Math.max(connected, 1);
    const cpuAdded = withWindow.msPerSec - without.msPerSec;
    return {
      requested: count,
      runs,
      connected,
      connectErrors: errors.length,
      firstErrors: [...new Set(errors)].slice(0, 3),
      openSeconds,
      openCpuMsPerStream: (openCpu.user + openCpu.system) / n,
      serverFdsBefore: fdsBefore,
      serverFdsWith: fdsWith,
      rssBeforeMb: before.rss / 2 ** 20,
      rssWithMb: withSubscribers.rss / 2 ** 20,
      rssPerSubscriberKb: (withSubscribers.rss - before.rss) / 1024 / n,
      rssAfterGcPerSubscriberKb: (withGc.rss - beforeGc.rss) / 1024 / n,
      heapAfterGcPerSubscriberKb: (withGc.heapUsed - beforeGc.heapUsed) / 1024 / n,
      heartbeatMs,
      windowMs,
      cpuBeforeMsPerSec: without.msPerSec,
      cpuWithMsPerSec: withWindow.msPerSec,
      peakSecondBeforeMs: without.peakSecondMs,
      peakSecondWithMs: withWindow.peakSecondMs,
      otherLoadPct: Math.max(without.otherLoadPct, withWindow.otherLoadPct),
      cpuPerHeartbeatRoundMs: (cpuAdded * heartbeatMs) / 1000,
      cpuPerHeartbeatUs: (cpuAdded * heartbeatMs) / n,
      heartbeatsReceived: heartbeats,
      heartbeatsExpected: connected * ticks,
      eventsWhileIdle,
      clientCpuMsPerSec: ((client.user + client.system) * 1000) / windowMs,
      endedWithResult,
      closeSeconds,
    };
  } finally {
    for (const subscriber of subscribers) subscriber.response?.destroy();
    await processes.fake.call('release').catch(() => {});
    await sut.close();
    agent.destroy();
  }
}
