/**
 * The scale-out cluster's API and worker processes seen as one bench "service" (the `usage` and
 * `reset-peak` of bench/measure.ts), read from /proc: they are started by the CLI, not forked by the
 * bench, so they answer no IPC.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Cluster } from '../test/scale/cluster.ts';
import type { BenchChild } from './children.ts';
import type { ChildCommand, ChildUsage } from './ipc.ts';

/** User and system CPU of one process so far (ms); zeros when it is gone. */
export function processCpu(pid: number | undefined): { user: number; system: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in USER_HZ (100 a second on Linux).
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
  } catch {
    return { user: 0, system: 0 };
  }
}

function statusKb(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

const pids = (cluster: Cluster) => [...cluster.apis, ...cluster.workers].map((process) => process.child.pid);

/** CPU so far of the API processes and of the worker processes (ms, user + system). */
export function roleCpuMs(cluster: Cluster): { api: number; workers: number } {
  const total = (processes: Cluster['apis']) =>
    processes.reduce((sum, process) => {
      const cpu = processCpu(process.child.pid);
      return sum + cpu.user + cpu.system;
    }, 0);
  return { api: total(cluster.apis), workers: total(cluster.workers) };
}

function clusterUsage(cluster: Cluster): ChildUsage {
  let user = 0;
  let system = 0;
  let rssKb = 0;
  let peakKb = 0;
  for (const pid of pids(cluster)) {
    const cpu = processCpu(pid);
    user += cpu.user;
    system += cpu.system;
    rssKb += statusKb(pid, 'VmRSS');
    peakKb += statusKb(pid, 'VmHWM');
  }
  return {
    cpu: { user: user * 1000, system: system * 1000 },
    rss: rssKb * 1024,
    maxRss: peakKb,
    // The sum of each process's own peak: an upper bound of the peak of the sum.
    peakRssKb: peakKb,
    heapUsed: NaN,
    hrtimeUs: Number(process.hrtime.bigint() / 1000n),
    mainThreadCpuMs: NaN,
  };
}

/** A BenchChild whose `usage` is the whole cluster's (API and workers, as they are when asked). */
export function clusterAsService(cluster: Cluster, url: string): BenchChild {
  return {
    url,
    info: {},
    pid: cluster.apis[0]?.child.pid ?? 0,
    call<T>(cmd: ChildCommand): Promise<T> {
      if (cmd === 'usage') return Promise.resolve(clusterUsage(cluster) as T);
      if (cmd === 'reset-peak') {
        // Writing 5 to clear_refs resets VmHWM to the current RSS.
        for (const pid of pids(cluster)) {
          try {
            writeFileSync(`/proc/${pid}/clear_refs`, '5');
          } catch {
            // Not ours to reset: the peak stays the process's own since it started.
          }
        }
        return Promise.resolve(undefined as T);
      }
      return Promise.reject(new Error(`the cluster answers no ${cmd}`));
    },
    stop: () => Promise.resolve(null),
  };
}
