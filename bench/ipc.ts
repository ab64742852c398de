import { readFileSync, writeFileSync } from 'node:fs';

/** The parent ↔ child protocol of the benchmark's helper processes (Node IPC, `process.send`). */

/**
 * `usage`: the child's CPU and memory; `reset-peak`: start a new peak-RSS window; `gc`: a full
 * garbage collection (when the child runs with --expose-gc), then `usage`. The fake provider also
 * answers `timings`, `reset`, `peaks` and `release` (see fake-provider-process.ts), the OTLP
 * receiver `exports` (see otlp-receiver-process.ts).
 */
export type ChildCommand =
  'usage' | 'reset-peak' | 'gc' | 'timings' | 'reset' | 'peaks' | 'release' | 'exports' | 'stop';

export interface ChildRequest {
  id: number;
  cmd: ChildCommand;
}

/** What a child answers to `usage`: its own CPU and memory, measured inside it. */
export interface ChildUsage {
  cpu: NodeJS.CpuUsage;
  rss: number;
  /** Peak resident set size of the process so far, in kilobytes (getrusage). */
  maxRss: number;
  /**
   * Peak resident set size since the last `reset-peak` (Linux VmHWM, reset through
   * /proc/self/clear_refs), in kilobytes; NaN where unreadable.
   */
  peakRssKb: number;
  /** V8's used heap, bytes. */
  heapUsed: number;
  /** process.hrtime in microseconds: the clock of `--cpu-prof` sample timestamps. */
  hrtimeUs: number;
  /** CPU of the event loop's thread alone, in ms (Linux /proc, 10 ms ticks); NaN where unreadable. */
  mainThreadCpuMs: number;
}

export type ChildMessage =
  | { type: 'ready'; url: string; info?: Record<string, unknown> }
  | { type: 'reply'; id: number; result: unknown }
  | { type: 'failed'; id?: number; message: string };

export function usageNow(): ChildUsage {
  const memory = process.memoryUsage();
  return {
    cpu: process.cpuUsage(),
    rss: memory.rss,
    maxRss: process.resourceUsage().maxRSS,
    peakRssKb: peakRssKb(),
    heapUsed: memory.heapUsed,
    hrtimeUs: Number(process.hrtime.bigint() / 1000n),
    mainThreadCpuMs: mainThreadCpuMs(),
  };
}

/** VmHWM of /proc/self/status, in kB. */
function peakRssKb(): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) : NaN;
  } catch {
    return NaN;
  }
}

/** Writing 5 to clear_refs resets the peak RSS (VmHWM) to the current RSS and changes nothing else. */
function resetPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

function collectGarbage(): ChildUsage {
  (globalThis as { gc?: () => void }).gc?.();
  return usageNow();
}

/** utime + stime of the thread whose id is the process id (the main thread), from /proc. */
function mainThreadCpuMs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** USER_HZ: 100 on every Linux architecture Node supports. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Child side: answers requests from the parent; `stop` replies, then exits 0 once `onStop` settles. */
export function serveParent(
  ready: Extract<ChildMessage, { type: 'ready' }>,
  handlers: Partial<Record<Exclude<ChildCommand, 'stop'>, () => unknown>>,
  onStop: () => Promise<void>,
): void {
  const send = (message: ChildMessage) => process.send?.(message);
  const defaults: Partial<Record<ChildCommand, () => unknown>> = {
    usage: usageNow,
    'reset-peak': resetPeakRss,
    gc: collectGarbage,
  };
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await onStop().catch(() => {});
    process.exit(0); // a normal exit, so --cpu-prof writes its profile
  };
  process.on('message', (raw) => {
    const request = raw as ChildRequest;
    if (request.cmd === 'stop') {
      send({ type: 'reply', id: request.id, result: null });
      void stop();
      return;
    }
    const handler = handlers[request.cmd] ?? defaults[request.cmd];
    if (!handler) {
      send({ type: 'failed', id: request.id, message: `unknown command ${String(request.cmd)}` });
      return;
    }
    Promise.resolve()
      .then(handler)
      .then(
        (result) => send({ type: 'reply', id: request.id, result }),
        (error: unknown) => send({ type: 'failed', id: request.id, message: String(error) }),
      );
  });
  // The parent went away (crashed or was killed): do not linger.
  process.on('disconnect', () => void stop());
  send(ready);
}
