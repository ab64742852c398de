/**
 * `npm run bench:parsers`: CPU cost, in the consuming process, of reading one streamed OpenAI Chat
 * Completions call three ways (bench/openai-chat-candidates.ts): the `openai` SDK, fetch +
 * eventsource-parser + JSON.parse, and the service's AI SDK path as the reference. The fake provider
 * runs in its own process (bench/openai-chat-parsers-fake.ts), one server per stream variant
 * (bench/openai-chat-variants.ts). Every (variant, concurrency) is measured once per candidate in
 * each round, the candidates' order rotating through all permutations across rounds so that drift
 * of a shared machine favours none; figures are medians over rounds with their range. See `--help`.
 */
import { readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ModelTurnOutput } from '../src/engine/ports.ts';
import { startChild } from './children.ts';
import type { ChildUsage } from './ipc.ts';
import { runLoad } from './load.ts';
import { cpuCount, machineBusyMs } from './machine.ts';
import { CANDIDATE_NAMES, CANDIDATES, type CandidateName } from './openai-chat-candidates.ts';
import {
  expectedTurn,
  VARIANT_NAMES,
  VARIANTS,
  type Variant,
  type VariantName,
} from './openai-chat-variants.ts';
import { summarizeProfile } from './profile-summary.ts';
import { cpuMs, sleep } from './setup.ts';
import { quantile } from './stats.ts';

const USAGE = `usage: npm run bench:parsers -- [options]   (node bench/openai-chat-parsers.ts on Node 24)
  --rounds N           rounds; in each, every candidate is measured once per variant and level,
                       in an order that rotates through all permutations (default 6)
  --calls N            measured calls per phase (default 500)
  --paced-c1-calls N   measured calls per phase for the paced variant at concurrency 1, whose calls
                       take ~460 ms each (default 90)
  --levels L           comma-separated concurrency levels (default 1,100)
  --variants V         comma-separated, of ${VARIANT_NAMES.join(', ')} (default all)
  --candidates C       comma-separated, of ${CANDIDATE_NAMES.join(', ')} (default all)
  --profile            after the rounds, CPU-profile each candidate (in-process V8 profiler, main
                       thread) on each selected variant but paced, at concurrency 1, and summarize
  --json               print every phase's figures as JSON on stdout (tables go to stderr; with npm,
                       use npm run -s so that npm's banner stays off stdout)`;

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '6' },
    calls: { type: 'string', default: '500' },
    'paced-c1-calls': { type: 'string', default: '90' },
    levels: { type: 'string', default: '1,100' },
    variants: { type: 'string', default: VARIANT_NAMES.join(',') },
    candidates: { type: 'string', default: CANDIDATE_NAMES.join(',') },
    profile: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

const positive = (value: string) => (/^[1-9]\d*$/.test(value) ? Number(value) : undefined);
const rounds = positive(args.rounds);
const calls = positive(args.calls);
const pacedC1Calls = positive(args['paced-c1-calls']);
const levels = args.levels.split(',').map(positive);
const variantNames = args.variants.split(',');
const candidateNames = args.candidates.split(',');
if (
  rounds === undefined ||
  calls === undefined ||
  pacedC1Calls === undefined ||
  levels.some((level) => level === undefined) ||
  !variantNames.every((name): name is VariantName => (VARIANT_NAMES as readonly string[]).includes(name)) ||
  !candidateNames.every((name): name is CandidateName =>
    (CANDIDATE_NAMES as readonly string[]).includes(name),
  )
) {
  console.error(USAGE);
  process.exit(2);
}
const concurrencies = levels as number[];
const variants = variantNames.map((name) => VARIANTS[name]);
const candidates = candidateNames;

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
const out = (text: string) => (args.json ? process.stderr : process.stdout).write(`${text}\n`);

// A full GC before each phase, so no phase pays for the garbage of the one before it.
v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Where the deltas go: counted, as a stand-in for the service's event log. */
let deltaChars = 0;
const sink: ModelTurnOutput = {
  onText: (text) => void (deltaChars += text.length),
  onThinking: (text) => void (deltaChars += text.length),
};

function packageVersion(name: string): string {
  try {
    const path = join(import.meta.dirname, '..', 'node_modules', name, 'package.json');
    return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
}

/** Every order of the candidates; round r runs them in orders[r mod n]. */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, index) =>
    permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
  );
}

interface PhaseResult {
  round: number;
  variant: VariantName;
  concurrency: number;
  candidate: CandidateName;
  /** Position of the candidate in its round's order (0 = first). */
  position: number;
  calls: number;
  errors: number;
  firstError?: string;
  cpuMsPerCall: number;
  userMsPerCall: number;
  systemMsPerCall: number;
  wallMs: number;
  callsPerSec: number;
  /** Duration of one call (request to end of stream), ms. */
  callMsP50: number;
  callMsP99: number;
  /** JS heap allocated during the phase (estimated from heap use around each GC), KB per call. */
  allocKbPerCall: number;
  gcs: number;
  gcMsPerCall: number;
  fakeCpuMsPerCall: number;
  /** Share of the machine's CPU (all cores) taken by processes other than this one and the fake. */
  otherLoadPct: number;
}

interface GcStatistic {
  cost: number;
  beforeGC: { heapStatistics: { usedHeapSize: number } };
  afterGC: { heapStatistics: { usedHeapSize: number } };
}

/** Bytes allocated between two heap-use readings, given the GCs in between (each frees what it frees). */
function allocatedBytes(startUsed: number, endUsed: number, statistics: readonly GcStatistic[]): number {
  let allocated = 0;
  let used = startUsed;
  for (const entry of statistics) {
    allocated += Math.max(0, entry.beforeGC.heapStatistics.usedHeapSize - used);
    used = entry.afterGC.heapStatistics.usedHeapSize;
  }
  return allocated + Math.max(0, endUsed - used);
}

const fake = await startChild('./openai-chat-parsers-fake.ts');
const urls = fake.info.urls as Record<VariantName, string>;

function caller(candidate: CandidateName, variant: Variant): () => Promise<number> {
  const run = CANDIDATES[candidate];
  const url = urls[variant.name];
  return async () => {
    const started = performance.now();
    await run(url, variant, new AbortController().signal, sink);
    return performance.now() - started;
  };
}

async function measurePhase(
  candidate: CandidateName,
  variant: Variant,
  concurrency: number,
  count: number,
  round: number,
  position: number,
): Promise<PhaseResult> {
  const call = caller(candidate, variant);
  // One unmeasured wave: the connections this level needs are open, whoever ran before.
  await runLoad(concurrency, concurrency, call);
  gc();
  const fake0 = await fake.call<ChildUsage>('usage');
  const machine0 = machineBusyMs();
  const heap0 = v8.getHeapStatistics().used_heap_size;
  const gcProfiler = new v8.GCProfiler();
  gcProfiler.start();
  const cpu0 = process.cpuUsage();
  const result = await runLoad(concurrency, count, call);
  const cpu1 = process.cpuUsage();
  const gcData = gcProfiler.stop() as unknown as { statistics: GcStatistic[] } | undefined;
  const heap1 = v8.getHeapStatistics().used_heap_size;
  const machine1 = machineBusyMs();
  const fake1 = await fake.call<ChildUsage>('usage');

  const statistics = gcData?.statistics ?? [];
  const n = Math.max(result.samples.length, 1);
  const cpu = cpuMs(cpu0, cpu1);
  const fakeCpu = cpuMs(fake0.cpu, fake1.cpu);
  const ours = cpu.user + cpu.system + fakeCpu.user + fakeCpu.system;
  const durations = [...result.samples].sort((a, b) => a - b);
  return {
    round,
    variant: variant.name,
    concurrency,
    candidate,
    position,
    calls: result.samples.length,
    errors: result.errors.length,
    ...(result.errors[0] !== undefined && { firstError: result.errors[0].message }),
    cpuMsPerCall: (cpu.user + cpu.system) / n,
    userMsPerCall: cpu.user / n,
    systemMsPerCall: cpu.system / n,
    wallMs: result.wallMs,
    callsPerSec: (result.samples.length * 1000) / result.wallMs,
    callMsP50: quantile(durations, 0.5),
    callMsP99: quantile(durations, 0.99),
    allocKbPerCall: allocatedBytes(heap0, heap1, statistics) / 1024 / n,
    gcs: statistics.length,
    gcMsPerCall: statistics.reduce((sum, entry) => sum + entry.cost, 0) / 1000 / n,
    fakeCpuMsPerCall: (fakeCpu.user + fakeCpu.system) / n,
    otherLoadPct:
      machine0 === undefined || machine1 === undefined
        ? Number.NaN
        : Math.max(0, (100 * (machine1 - machine0 - ours)) / (result.wallMs * cpuCount)),
  };
}

/** Each candidate once per variant: what it made of the stream must be what the variant sent. */
async function checkCandidates(): Promise<void> {
  for (const variant of variants) {
    const expected = expectedTurn(variant);
    for (const candidate of candidates) {
      let thinking = '';
      let streamed = '';
      const turn = await CANDIDATES[candidate](urls[variant.name], variant, new AbortController().signal, {
        onText: (text) => void (streamed += text),
        onThinking: (text) => void (thinking += text),
      });
      const got = {
        text: turn.text,
        thinking,
        toolCalls: turn.toolCalls.map(({ id, name, input }) => ({ id, name, input })),
        finishReason: turn.finishReason,
        inputTokens: turn.usage.inputTokens,
        outputTokens: turn.usage.outputTokens,
      };
      const same = JSON.stringify(got) === JSON.stringify(expected) && streamed === expected.text;
      if (!same) {
        throw new Error(
          `${candidate} on ${variant.name}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(got)} (streamed text ${JSON.stringify(streamed)})`,
        );
      }
    }
  }
}

// ---------------------------------------------------------------- report

interface Spread {
  median: number;
  min: number;
  max: number;
}

function spread(values: readonly number[]): Spread {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), min: sorted[0] ?? Number.NaN, max: sorted.at(-1) ?? Number.NaN };
}

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const withRange = ({ median, min, max }: Spread, digits: number) =>
  `${fixed(median, digits)} [${fixed(min, digits)}–${fixed(max, digits)}]`;

function levelTable(results: readonly PhaseResult[], concurrency: number): string {
  const lines = [
    `concurrency ${concurrency}: median over rounds [min–max across rounds]`,
    '',
    '| variant | candidate | CPU ms/call | ×ai-sdk | call ms p50 | calls/s | alloc KB/call | GC ms/call | other load % | errors |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const variant of variants) {
    const of = (candidate: CandidateName) =>
      results.filter(
        (result) =>
          result.concurrency === concurrency &&
          result.variant === variant.name &&
          result.candidate === candidate,
      );
    const reference = spread(of('ai-sdk').map((result) => result.cpuMsPerCall)).median;
    for (const candidate of candidates) {
      const phases = of(candidate);
      if (phases.length === 0) continue;
      const cpu = spread(phases.map((result) => result.cpuMsPerCall));
      lines.push(
        [
          '',
          variant.name,
          candidate,
          withRange(cpu, 3),
          fixed(cpu.median / reference, 2),
          fixed(spread(phases.map((result) => result.callMsP50)).median, 2),
          withRange(spread(phases.map((result) => result.callsPerSec)), 0),
          withRange(spread(phases.map((result) => result.allocKbPerCall)), 1),
          fixed(spread(phases.map((result) => result.gcMsPerCall)).median, 3),
          fixed(spread(phases.map((result) => result.otherLoadPct)).median, 0),
          String(phases.reduce((sum, result) => sum + result.errors, 0)),
          '',
        ]
          .join(' | ')
          .trim(),
      );
    }
  }
  return lines.join('\n');
}

/** fetch-esp against openai-sdk round by round (the two ran minutes apart at most): CPU ratio. */
function pairTable(results: readonly PhaseResult[]): string {
  const lines = [
    'fetch-esp CPU ÷ openai-sdk CPU, paired within each round: median [min–max], rounds where fetch-esp was lighter',
    '',
    '| variant | concurrency | ratio | fetch-esp lighter in |',
    '| --- | --- | --- | --- |',
  ];
  for (const variant of variants) {
    for (const concurrency of concurrencies) {
      const ratios: number[] = [];
      for (let round = 0; round < (rounds as number); round++) {
        const find = (candidate: CandidateName) =>
          results.find(
            (result) =>
              result.round === round &&
              result.variant === variant.name &&
              result.concurrency === concurrency &&
              result.candidate === candidate,
          );
        const lean = find('fetch-esp');
        const sdk = find('openai-sdk');
        if (lean && sdk) ratios.push(lean.cpuMsPerCall / sdk.cpuMsPerCall);
      }
      if (ratios.length === 0) continue;
      const lighter = ratios.filter((ratio) => ratio < 1).length;
      lines.push(
        `| ${variant.name} | ${concurrency} | ${withRange(spread(ratios), 2)} | ${lighter} of ${ratios.length} |`,
      );
    }
  }
  return lines.join('\n');
}

/**
 * What this process costs doing nothing (3 s), and waking every 5 ms on a bare timer (2 s): at
 * concurrency 1 a paced call is ~51 such wake-ups, each paid again whatever the candidate does.
 */
async function wakeupFloor(): Promise<{ idleMsPerSec: number; wakeupUs: number }> {
  gc();
  await sleep(500);
  const idle0 = process.cpuUsage();
  const idleStarted = performance.now();
  await sleep(3000);
  const idle = cpuMs(idle0, process.cpuUsage());
  const idleMsPerSec = ((idle.user + idle.system) * 1000) / (performance.now() - idleStarted);
  let wakeups = 0;
  const wake0 = process.cpuUsage();
  const until = performance.now() + 2000;
  while (performance.now() < until) {
    await sleep(5);
    wakeups++;
  }
  const woken = cpuMs(wake0, process.cpuUsage());
  return { idleMsPerSec, wakeupUs: ((woken.user + woken.system) * 1000) / Math.max(wakeups, 1) };
}

async function profileCandidates(count: number): Promise<string> {
  const dir = mkdtempSync(join(os.tmpdir(), 'agent-runs-parsers-profile-'));
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  const sections: string[] = [];
  try {
    for (const variant of variants.filter((variant) => variant.name !== 'paced')) {
      for (const candidate of candidates) {
        const call = caller(candidate, variant);
        await runLoad(1, 50, call);
        gc();
        await session.post('Profiler.start');
        await runLoad(1, count, call);
        const { profile } = await session.post('Profiler.stop');
        const path = join(dir, `${variant.name}-${candidate}.cpuprofile`);
        writeFileSync(path, JSON.stringify(profile));
        sections.push(
          `${candidate} on ${variant.name}, ${count} calls at concurrency 1\n${summarizeProfile(path, [], 15)}`,
        );
      }
    }
  } finally {
    session.disconnect();
  }
  return sections.join('\n\n');
}

// ---------------------------------------------------------------- the run

try {
  const scenario = [
    `Node ${process.version}, ${cpuCount} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), load average ${os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
    `openai ${packageVersion('openai')}, eventsource-parser ${packageVersion('eventsource-parser')}, ai ${packageVersion('ai')}, @ai-sdk/openai-compatible ${packageVersion('@ai-sdk/openai-compatible')}`,
    `fake provider: pid ${fake.pid}, its own process; ${rounds} rounds; ${calls} calls per phase (paced at c=1: ${pacedC1Calls})`,
    ...variants.map((variant) => `variant ${variant.name}: ${variant.description}`),
  ];
  for (const line of scenario) log(line);

  log('checking that every candidate reads every variant right…');
  await checkCandidates();

  log('warming up: 200 calls per candidate and variant at concurrency 10 (paced: 20)…');
  for (const variant of variants) {
    for (const candidate of candidates) {
      await runLoad(10, variant.name === 'paced' ? 20 : 200, caller(candidate, variant));
    }
  }

  const floor = await wakeupFloor();
  log(
    `this process idle: ${floor.idleMsPerSec.toFixed(2)} ms CPU per second; waking every 5 ms on a timer: ${floor.wakeupUs.toFixed(0)} µs CPU per wake-up`,
  );

  const orders = permutations(candidates);
  const results: PhaseResult[] = [];
  const started = performance.now();
  for (let round = 0; round < rounds; round++) {
    const order = orders[round % orders.length] as CandidateName[];
    log(
      `round ${round + 1}/${rounds}: ${order.join(', ')} (${((performance.now() - started) / 1000).toFixed(0)} s in)`,
    );
    for (const variant of variants) {
      for (const concurrency of concurrencies) {
        const count = variant.name === 'paced' && concurrency === 1 ? pacedC1Calls : calls;
        const line: string[] = [];
        for (const [position, candidate] of order.entries()) {
          const result = await measurePhase(candidate, variant, concurrency, count, round, position);
          results.push(result);
          line.push(
            `${candidate} ${result.cpuMsPerCall.toFixed(3)}${result.errors > 0 ? ` (${result.errors} errors: ${result.firstError})` : ''}`,
          );
        }
        log(`  ${variant.name} c=${concurrency}: CPU ms/call ${line.join(', ')}`);
      }
    }
  }

  out(`\n${scenario.join('\n')}\n`);
  for (const concurrency of concurrencies) out(`${levelTable(results, concurrency)}\n`);
  if (candidates.includes('fetch-esp') && candidates.includes('openai-sdk')) out(`${pairTable(results)}\n`);
  out(
    `this process idle: ${floor.idleMsPerSec.toFixed(2)} ms CPU/s; a bare 5 ms timer wake-up: ${floor.wakeupUs.toFixed(0)} µs CPU ` +
      `(for scale: a paced call at c=1 is ~51 wake-ups, ${((floor.wakeupUs * 51) / 1000).toFixed(2)} ms at that rate, whatever reads the stream)`,
  );
  const fakeCpu = spread(results.map((result) => result.fakeCpuMsPerCall));
  out(
    `fake provider's CPU (its own process, not counted above): ${withRange(fakeCpu, 3)} ms/call over all phases`,
  );
  out(`deltas delivered to the sink: ${deltaChars} characters`);

  if (args.profile) {
    log('profiling…');
    out(`\n${await profileCandidates(calls)}`);
  }
  if (args.json) process.stdout.write(`${JSON.stringify({ scenario, results }, null, 2)}\n`);
} finally {
  await fake.stop();
}
