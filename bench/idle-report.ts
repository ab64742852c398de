import { f1, f2 } from './format.ts';

/** The idle-subscriber measurement (bench/idle-subscribers.ts). */
export interface IdleResult {
  /** Subscribers asked for, the runs they are spread over, and how many were connected. */
  requested: number;
  runs: number;
  /** Subscribers whose stream delivered the run's first event (replayed after the subscription). */
  connected: number;
  connectErrors: number;
  firstErrors: string[];
  /** Seconds to open them all, and the service's CPU per stream opened (ms). */
  openSeconds: number;
  openCpuMsPerStream: number;
  /** The service's open file descriptors without the subscribers and with them. */
  serverFdsBefore: number;
  serverFdsWith: number;
  /** RSS of the service without and with the subscribers (MiB), and the difference per subscriber (KB). */
  rssBeforeMb: number;
  rssWithMb: number;
  rssPerSubscriberKb: number;
  /** The same after a full garbage collection on both sides: RSS and V8's used heap per subscriber (KB). */
  rssAfterGcPerSubscriberKb: number;
  heapAfterGcPerSubscriberKb: number;
  heartbeatMs: number;
  /** Length of each CPU window (a whole number of heartbeat intervals). */
  windowMs: number;
  /** The service's CPU without subscribers and with them (ms per second), and the busiest second of each. */
  cpuBeforeMsPerSec: number;
  cpuWithMsPerSec: number;
  peakSecondBeforeMs: number;
  peakSecondWithMs: number;
  /** The most of the machine's CPU other processes took during either window (%). */
  otherLoadPct: number;
  /** CPU the subscribers add per heartbeat interval, all of them together (ms), and per subscriber and heartbeat (µs). */
  cpuPerHeartbeatRoundMs: number;
  cpuPerHeartbeatUs: number;
  heartbeatsReceived: number;
  heartbeatsExpected: number;
  /** Event frames that reached idle subscribers after they connected and before the release (0: idle). */
  eventsWhileIdle: number;
  /** The load generator's CPU during the window with subscribers (ms per second). */
  clientCpuMsPerSec: number;
  /** After the held model calls were released: subscribers that got the run's `result`, and the time it took. */
  endedWithResult: number;
  closeSeconds: number;
}

export function idleTable(idle: IdleResult): string {
  const rows = [
    `connected: ${idle.connected} of ${idle.requested} (${idle.connectErrors} errors) in ${f1(idle.openSeconds)} s, ${f2(idle.openCpuMsPerStream)} ms of service CPU per stream opened; service open files ${idle.serverFdsBefore} → ${idle.serverFdsWith}`,
    `service RSS ${f1(idle.rssBeforeMb)} → ${f1(idle.rssWithMb)} MiB: ${f1(idle.rssPerSubscriberKb)} KB per subscriber (after a full GC: RSS ${f1(idle.rssAfterGcPerSubscriberKb)} KB, V8 heap ${f1(idle.heapAfterGcPerSubscriberKb)} KB per subscriber)`,
    `service CPU over ${idle.windowMs / 1000} s (${idle.windowMs / idle.heartbeatMs} heartbeat intervals of ${idle.heartbeatMs / 1000} s): ${f2(idle.cpuWithMsPerSec)} ms/s with the subscribers, ${f2(idle.cpuBeforeMsPerSec)} ms/s without; busiest second ${f1(idle.peakSecondWithMs)} ms (without: ${f1(idle.peakSecondBeforeMs)} ms); other processes took up to ${f1(idle.otherLoadPct)}% of the machine's CPU${idle.otherLoadPct > 10 ? '  <-- noisy: figures are not representative' : ''}`,
    `heartbeats: ${idle.heartbeatsReceived} received in the window (${idle.heartbeatsExpected} expected); the subscribers add ${f2(idle.cpuPerHeartbeatRoundMs)} ms of CPU per heartbeat round, ${f2(idle.cpuPerHeartbeatUs)} µs per subscriber and heartbeat`,
    `events that reached idle subscribers: ${idle.eventsWhileIdle}; load generator CPU during the window ${f2(idle.clientCpuMsPerSec)} ms/s`,
    `after the release: ${idle.endedWithResult} of ${idle.requested} subscribers got their run's result and were closed by the service in ${f1(idle.closeSeconds)} s`,
  ];
  if (idle.firstErrors.length > 0) rows.push(`first errors: ${idle.firstErrors.join(' | ')}`);
  return `${idle.requested} idle SSE subscribers on ${idle.runs} runs held at the provider\n${rows.map((row) => `  ${row}`).join('\n')}`;
}

/** The idle-subscriber table for docs/performance.md. */
export function idleMarkdown(idle: IdleResult): string[] {
  return [
    '| idle SSE subscribers | connected | RSS per subscriber KB (after GC) | service CPU idle ms/s with / without | CPU per heartbeat round ms (per subscriber µs) | busiest second ms | heartbeats received / expected | CPU taken by other processes |',
    '| -: | -: | -: | -: | -: | -: | -: | -: |',
    `| ${idle.requested} on ${idle.runs} runs | ${idle.connected} | ${f1(idle.rssPerSubscriberKb)} (${f1(idle.rssAfterGcPerSubscriberKb)}) | ${f2(idle.cpuWithMsPerSec)} / ${f2(idle.cpuBeforeMsPerSec)} | ${f2(idle.cpuPerHeartbeatRoundMs)} (${f2(idle.cpuPerHeartbeatUs)}) every ${idle.heartbeatMs / 1000} s | ${f1(idle.peakSecondWithMs)} | ${idle.heartbeatsReceived} / ${idle.heartbeatsExpected} | ${f1(idle.otherLoadPct)}% |`,
  ];
}
