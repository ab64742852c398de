import { readFileSync } from 'node:fs';

/** The parent ↔ child protocol of the benchmark's helper processes (Node IPC, `process.send`). */

export type ChildCommand = 'usage' | 'timings' | 'reset' | 'stop';

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
  return {
    cpu: process.cpuUsage(),
    rss: process.memoryUsage().rss,
    maxRss: process.resourceUsage().maxRSS,
    hrtimeUs: Number(process.hrtime.bigint() / 1000n),
    mainThreadCpuMs: mainThreadCpuMs(),
  };
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
    const handler = request.cmd === 'usage' ? (handlers.usage ?? usageNow) : handlers[request.cmd];
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
