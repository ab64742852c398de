import { readFileSync } from 'node:fs';
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
