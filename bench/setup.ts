import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { startChild, type BenchChild } from './children.ts';
import { provisionWorkspace, type ServiceTarget } from './clients.ts';
import { cpuCount } from './machine.ts';

export interface BenchProcesses {
  fake: BenchChild;
  service: BenchChild;
  target: ServiceTarget;
  databasePath: string;
  /** One line describing the provider script and the machine. */
  scenario: string;
  /** How long one run takes at the fake provider: its first-chunk delay plus its chunks. */
  runDurationMs: number;
  /** Stops the service cleanly (its stop flushes the event log); idempotent. */
  stopService(): Promise<void>;
  /** Stops whatever still runs and deletes the temporary database. */
  close(): Promise<void>;
}

/** The service's environment: only what the bench sets, none of the caller's service settings. */
function serviceEnv(databasePath: string, adminToken: string, modelThreads?: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (
      /^(AGENT_RUNS_|DATABASE_URL$|REDIS_URL$|PORT$|HOST$|LOG_LEVEL$|OPENAI_|ANTHROPIC_|GOOGLE_)/.test(name)
    )
      continue;
    env[name] = value;
  }
  return {
    ...env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${databasePath}`,
    AGENT_RUNS_ADMIN_TOKEN: adminToken,
    AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
    AGENT_RUNS_WORKER_CONCURRENCY: '256',
    ...(modelThreads !== undefined && { AGENT_RUNS_MODEL_THREADS: String(modelThreads) }),
    LOG_LEVEL: 'silent',
  };
}

/**
 * The fake provider and the service, each in its own process, the service on a
 * fresh SQLite file with one workspace whose default model is the fake.
 * `profileDir`: run the service under `--cpu-prof`, writing its profile there on stop (one file per thread).
 * `modelThreads`: the service's AGENT_RUNS_MODEL_THREADS (default: the service's own default).
 */
export async function startBenchProcesses(
  options: { profileDir?: string; modelThreads?: number } = {},
): Promise<BenchProcesses> {
  const workDir = mkdtempSync(join(os.tmpdir(), 'agent-runs-bench-'));
  const databasePath = join(workDir, 'bench.db');
  const adminToken = randomBytes(24).toString('base64url');
  let fake: BenchChild | undefined;
  let service: BenchChild | undefined;
  let serviceStopped = false;
  const stopService = async () => {
    if (serviceStopped || !service) return;
    serviceStopped = true;
    await service.stop();
  };
  const close = async () => {
    await stopService().catch(() => {});
    await fake?.stop().catch(() => {});
    rmSync(workDir, { recursive: true, force: true });
  };
  try {
    fake = await startChild('./fake-provider-process.ts');
    service = await startChild('./service-process.ts', {
      env: serviceEnv(databasePath, adminToken, options.modelThreads),
      execArgv: options.profileDir
        ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`, '--cpu-prof-interval=250']
        : [],
    });
    const target = await provisionWorkspace(service.url, adminToken, fake.url);
    const info = fake.info as { firstChunkDelayMs: number; chunkIntervalMs: number; textChunks: number };
    const scenario =
      `fake OpenAI Chat provider in its own process, first chunk after ${info.firstChunkDelayMs} ms then ${info.textChunks} text chunks ${info.chunkIntervalMs} ms apart; ` +
      `service (SQLite, WAL) and load generator in separate processes; ${cpuCount} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), Node ${process.version}`;
    const runDurationMs = info.firstChunkDelayMs + info.textChunks * info.chunkIntervalMs;
    return { fake, service, target, databasePath, scenario, runDurationMs, stopService, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** CPU time between two process.cpuUsage() readings, in ms. */
export function cpuMs(before: NodeJS.CpuUsage, after: NodeJS.CpuUsage): { user: number; system: number } {
  return { user: (after.user - before.user) / 1000, system: (after.system - before.system) / 1000 };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
