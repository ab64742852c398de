import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { startChild, type BenchChild } from './children.ts';
import type { ServiceTarget } from './clients.ts';
import { provisionWorkspace } from './provision.ts';
import { cpuCount } from './machine.ts';
import serviceNodeFlags from '../bin/service-node-flags.json' with { type: 'json' };

/** A service process on its own fresh SQLite file, with the bench workspace provisioned. */
export interface ServiceUnderTest {
  service: BenchChild;
  target: ServiceTarget;
  databasePath: string;
  /** Stops the service cleanly (its stop flushes the event log); idempotent. */
  stop(): Promise<void>;
  /** Stops it and deletes its temporary database. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** Run the service under `--cpu-prof`, writing its profile there on stop (one file per thread). */
  profileDir?: string;
  /** The service's AGENT_RUNS_MODEL_THREADS (default: the service's own default). */
  modelThreads?: number;
  /** The service's AGENT_RUNS_WORKER_CONCURRENCY (default: unset, the service's own default, 256). */
  workerConcurrency?: number;
  /**
   * The service's LOG_LEVEL (default: unset, the service's own default, `info`, as `agent-runs serve`
   * runs). Its stdout, where its log lines go, is a file beside its database.
   */
  logLevel?: string;
  /** The SSE heartbeat interval (default: the service's own, 15 s). */
  heartbeatMs?: number;
  /** Start the service with --expose-gc, so that the bench can ask for a full collection before a memory reading. */
  exposeGc?: boolean;
  /** Also register the fake's holding endpoint as provider `hold` (model `hold/held`). */
  holdProvider?: boolean;
  /** Tracing on, exporting over OTLP/HTTP to this endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`) in this protocol. */
  tracing?: { endpoint: string; protocol: OtlpProtocol };
}

/** The OTLP/HTTP encodings of `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` (extensions §3). */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface BenchProcesses extends ServiceUnderTest {
  fake: BenchChild;
  /** One line describing the provider script and the machine. */
  scenario: string;
  /** How long one run takes at the fake provider: its first-chunk delay plus its chunks. */
  runDurationMs: number;
  /** Stops the service cleanly; idempotent. */
  stopService(): Promise<void>;
  /** Another service process beside the first, on its own database, against the same fake provider. */
  startService(options: ServiceOptions): Promise<ServiceUnderTest>;
  /** Stops whatever still runs and deletes the temporary databases. */
  close(): Promise<void>;
}

/**
 * The service's environment: only what the bench sets, none of the caller's service settings (nor
 * their `OTEL_*` variables: tracing is on only where the bench turns it on). What the bench does not
 * set keeps the service's default, as `agent-runs serve` started with an empty environment.
 */
function serviceEnv(databasePath: string, adminToken: string, options: ServiceOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (
      /^(AGENT_RUNS_|BENCH_|OTEL_|DATABASE_URL$|REDIS_URL$|PORT$|HOST$|LOG_LEVEL$|OPENAI_|ANTHROPIC_|GOOGLE_)/.test(
        name,
      )
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
    ...(options.workerConcurrency !== undefined && {
      AGENT_RUNS_WORKER_CONCURRENCY: String(options.workerConcurrency),
    }),
    ...(options.modelThreads !== undefined && { AGENT_RUNS_MODEL_THREADS: String(options.modelThreads) }),
    ...(options.heartbeatMs !== undefined && { BENCH_HEARTBEAT_MS: String(options.heartbeatMs) }),
    ...(options.tracing && {
      OTEL_EXPORTER_OTLP_ENDPOINT: options.tracing.endpoint,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: options.tracing.protocol,
    }),
    ...(options.logLevel !== undefined && { LOG_LEVEL: options.logLevel }),
  };
}

async function startServiceUnderTest(fake: BenchChild, options: ServiceOptions): Promise<ServiceUnderTest> {
  const workDir = mkdtempSync(join(os.tmpdir(), 'agent-runs-bench-'));
  const databasePath = join(workDir, 'bench.db');
  const adminToken = randomBytes(24).toString('base64url');
  // The service's stdout (its log lines) goes to a file, as a deployment's log collector would take it.
  const logFd = openSync(join(workDir, 'service.log'), 'a');
  let service: BenchChild | undefined;
  let stopped = false;
  const stop = async () => {
    if (stopped || !service) return;
    stopped = true;
    await service.stop();
  };
  const close = async () => {
    await stop().catch(() => {});
    rmSync(workDir, { recursive: true, force: true });
  };
  try {
    service = await startChild('./service-process.ts', {
      env: serviceEnv(databasePath, adminToken, options),
      stdout: logFd,
      execArgv: [
        ...(options.profileDir
          ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`, '--cpu-prof-interval=250']
          : []),
        ...(options.exposeGc ? ['--expose-gc'] : []),
        // As `agent-runs serve` runs (bin/agent-runs.js).
        ...serviceNodeFlags,
      ],
    }).finally(() => closeSync(logFd));
    const holdUrl = options.holdProvider ? (fake.info.holdUrl as string) : undefined;
    const target = await provisionWorkspace(service.url, adminToken, fake.url, holdUrl);
    return { service, target, databasePath, stop, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The fake provider and the service, each in its own process, the service on a
 * fresh SQLite file with one workspace whose default model is the fake.
 */
export async function startBenchProcesses(options: ServiceOptions = {}): Promise<BenchProcesses> {
  let fake: BenchChild | undefined;
  const services: ServiceUnderTest[] = [];
  const close = async () => {
    for (const service of services) await service.close().catch(() => {});
    await fake?.stop().catch(() => {});
  };
  try {
    fake = await startChild('./fake-provider-process.ts');
    const fakeChild = fake;
    const main = await startServiceUnderTest(fakeChild, options);
    services.push(main);
    const info = fake.info as { firstChunkDelayMs: number; chunkIntervalMs: number; textChunks: number };
    const scenario =
      `fake OpenAI Chat provider in its own process, first chunk after ${info.firstChunkDelayMs} ms then ${info.textChunks} text chunks ${info.chunkIntervalMs} ms apart; ` +
      `service (SQLite, WAL) and load generator in separate processes; ${cpuCount} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), Node ${process.version}`;
    const runDurationMs = info.firstChunkDelayMs + info.textChunks * info.chunkIntervalMs;
    return {
      ...main,
      fake,
      scenario,
      runDurationMs,
      stopService: main.stop,
      startService: async (serviceOptions) => {
        const started = await startServiceUnderTest(fakeChild, serviceOptions);
        services.push(started);
        return started;
      },
      close,
    };
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
