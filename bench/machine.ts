import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

/**
 * Busy CPU time of the whole machine so far (ms, all cores), from /proc/stat;
 * undefined where that file does not exist. Lets the report say how much of
 * the machine other processes took while a phase was measured.
 */
export function machineBusyMs(): number | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/stat', 'utf8');
  } catch {
    return undefined;
  }
  const fields = (stat.split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal …: busy is everything but idle and iowait.
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  const ticksPerSecond = 100; // USER_HZ on Linux
  return ((user + nice + system + irq + softirq + steal) * 1000) / ticksPerSecond;
}

export const cpuCount = os.availableParallelism();

/**
 * Connections the kernel dropped because a listening socket's accept queue was full (TcpExt
 * ListenDrops of /proc/net/netstat, which includes ListenOverflows), in this network namespace
 * (every process of the machine here); undefined where unreadable. A client whose connection was
 * dropped retries after a second: at c=1,000 this tells a full backlog from a slow service.
 */
export function listenDrops(): number | undefined {
  let netstat: string;
  try {
    netstat = readFileSync('/proc/net/netstat', 'utf8');
  } catch {
    return undefined;
  }
  const lines = netstat.split('\n');
  for (let index = 0; index + 1 < lines.length; index += 2) {
    const names = (lines[index] ?? '').trim().split(/\s+/);
    if (names[0] !== 'TcpExt:') continue;
    const values = (lines[index + 1] ?? '').trim().split(/\s+/);
    const at = names.indexOf('ListenDrops');
    return at === -1 ? undefined : Number(values[at]);
  }
  return undefined;
}

/** The soft limit on open files of a process (its `ulimit -n`), from /proc; undefined where unreadable. */
export function openFilesLimit(pid: number | 'self' = 'self'): number | undefined {
  try {
    const match = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
    if (!match) return undefined;
    return match[1] === 'unlimited' ? Infinity : Number(match[1]);
  } catch {
    return undefined;
  }
}

/** File descriptors a process holds open (sockets included); undefined where /proc/PID/fd is unreadable. */
export function openFiles(pid: number | 'self' = 'self'): number | undefined {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return undefined;
  }
}

/**
 * CPU time a process used so far (ms, user + system, all its threads), from /proc/PID/stat; NaN where
 * unreadable. For processes the bench did not fork itself (the scale-out cluster's).
 */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count the fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticksPerSecond = 100; // USER_HZ on Linux
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  } catch {
    return NaN;
  }
}
