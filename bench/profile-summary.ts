/**
 * Summarizes a V8 `.cpuprofile` (from `node --cpu-prof`): busy time by area
 * (service source file, npm package, Node internals, GC), the hottest
 * functions by self time, and service functions by inclusive time. Times are
 * samples × the sampling interval, i.e. estimates of on-CPU time.
 * Usage: node bench/profile-summary.ts <file.cpuprofile> [top]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A time window in the profile's clock (process.hrtime, microseconds). */
export interface Window {
  fromUs: number;
  toUs: number;
}

function areaOf(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : '(native)';
  if (url.startsWith('node:')) return url.split('/').slice(0, 3).join('/');
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const [scope, pkg] = url.slice(modules + '/node_modules/'.length).split('/');
    return scope?.startsWith('@') ? `${scope}/${pkg}` : (scope ?? url);
  }
  const src = url.lastIndexOf('/src/');
  if (src !== -1) return url.slice(src + 1);
  return url.replace(/^file:\/\/.*\/(bench|test)\//, '$1/');
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) return url.slice(modules + '/node_modules/'.length);
  const src = url.lastIndexOf('/src/');
  if (src !== -1) return url.slice(src + 1);
  return url;
}

/**
 * The area of the innermost frame that is service or package code: what a sample in Node's own
 * code (a write, a timer, `AsyncLocalStorage.run`) was doing it for. `@opentelemetry/*` there is
 * the cost of tracing itself, apart from the handlers it runs in the span's context.
 */
const TRACING_AREA = /^(@opentelemetry\/|src\/infra\/tracing\/)/;

function callerArea(leaf: ProfileNode, byId: Map<number, ProfileNode>, parent: Map<number, number>): string {
  for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
    const { url, functionName } = (byId.get(id) as ProfileNode).callFrame;
    if (url !== '' && !url.startsWith('node:')) return areaOf(url, functionName);
  }
  return areaOf(leaf.callFrame.url, leaf.callFrame.functionName);
}

export function summarizeProfile(path: string, windows: Window[] = [], top = 25): string {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const selfByFunction = new Map<string, number>();
  const selfByArea = new Map<string, number>();
  const selfByCaller = new Map<string, number>();
  const inclusiveByArea = new Map<string, number>();
  const inclusiveBySrcFunction = new Map<string, number>();
  let busyUs = 0;
  let idleUs = 0;
  // Weigh every sample by the nominal interval rather than by the gap to the next sample: on a busy
  // machine a descheduled thread yields one late sample, and gap weighting would charge the time it
  // spent off the CPU to whatever function it was preempted in.
  const sortedDeltas = profile.timeDeltas.filter((delta) => delta > 0).sort((a, b) => a - b);
  const interval = sortedDeltas[Math.floor(sortedDeltas.length / 2)] ?? 1000;
  let time = profile.startTime;
  const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);

  for (let index = 0; index < profile.samples.length; index++) {
    time += profile.timeDeltas[index] ?? 0;
    const weight = interval;
    if (windows.length > 0 && !windows.some((window) => time >= window.fromUs && time <= window.toUs))
      continue;
    const leaf = byId.get(profile.samples[index] as number);
    if (!leaf) continue;
    const { functionName, url, lineNumber } = leaf.callFrame;
    if (functionName === '(idle)') {
      idleUs += weight;
      continue;
    }
    busyUs += weight;
    const area = areaOf(url, functionName);
    add(selfByArea, area, weight);
    add(selfByFunction, `${functionName || '(anonymous)'} ${shortUrl(url)}:${lineNumber + 1}`, weight);
    add(selfByCaller, callerArea(leaf, byId, parent), weight);
    const seenAreas = new Set<string>();
    const seenFunctions = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const frame = (byId.get(id) as ProfileNode).callFrame;
      const frameArea = areaOf(frame.url, frame.functionName);
      seenAreas.add(frameArea);
      if (frameArea.startsWith('src/'))
        seenFunctions.add(`${frame.functionName || '(anonymous)'} ${frameArea}:${frame.lineNumber + 1}`);
    }
    for (const key of seenAreas) add(inclusiveByArea, key, weight);
    for (const key of seenFunctions) add(inclusiveBySrcFunction, key, weight);
  }

  const ms = (us: number) => (us / 1000).toFixed(0).padStart(7);
  const pct = (us: number) => `${((100 * us) / Math.max(busyUs, 1)).toFixed(1).padStart(5)}%`;
  const list = (title: string, map: Map<string, number>, count: number) =>
    [
      title,
      ...[...map.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, count)
        .map(([key, us]) => `  ${ms(us)} ms ${pct(us)}  ${key}`),
    ].join('\n');

  let tracingUs = 0;
  for (const [area, us] of selfByCaller) if (TRACING_AREA.test(area)) tracingUs += us;

  return [
    `profile ${path}${windows.length > 0 ? ` (${windows.length} measured windows only)` : ''}: busy ${ms(busyUs).trim()} ms, idle ${ms(idleUs).trim()} ms`,
    list('self time by area:', selfByArea, 20),
    list(
      "self time by package, Node's internals and natives charged to the code that called them:",
      selfByCaller,
      20,
    ),
    `tracing's own code (@opentelemetry/*, src/infra/tracing/), so charged: ${ms(tracingUs).trim()} ms, ${pct(tracingUs).trim()} of busy`,
    list('self time by function:', selfByFunction, top),
    list('inclusive time by area (on the stack):', inclusiveByArea, 25),
    list('inclusive time of service functions (src/):', inclusiveBySrcFunction, top),
  ].join('\n\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node bench/profile-summary.ts <file.cpuprofile> [top]');
    process.exit(2);
  }
  console.log(summarizeProfile(file, [], top ? Number(top) : 25));
}

/**
 * The profiles `--cpu-prof` wrote in `dir`, one per thread (`CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile`),
 * the event loop's thread (0) first. The checkpointer and model threads get their own.
 */
export function threadProfiles(dir: string): Array<{ thread: string; path: string }> {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => ({ name, threadId: Number(name.split('.').at(-3)) }))
    .sort((a, b) => a.threadId - b.threadId)
    .map(({ name, threadId }) => ({
      thread: threadId === 0 ? 'event loop thread' : `worker thread ${threadId}`,
      path: join(dir, name),
    }));
}
