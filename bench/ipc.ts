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
  };
}

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
