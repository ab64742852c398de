import { availableParallelism } from 'node:os';
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS } from './domain/webhooks.ts';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import type { ProviderKeys } from './providers/builtin-offerings.ts';
import type { StorageConfig } from './storage/database.ts';

export type Role = 'all' | 'api' | 'worker';

export interface Config {
  port: number;
  host: string;
  storage: StorageConfig;
  redisUrl: string | undefined;
  role: Role;
  adminToken: string | undefined;
  publicUrl: string | undefined;
  trustProxy: TrustProxy;
  secret: string | undefined;
  logLevel: string;
  /** Runs one worker process executes at once. */
  workerConcurrency: number;
  /** Worker threads that run model calls (provider requests and stream parsing); 0 runs them on the event loop. */
  modelThreads: number;
  /** Scale-out: prefix of every Redis key and channel, so several deployments can share one Redis. */
  redisPrefix: string;
  /** Scale-out: how long a worker's claim on a run lasts without renewal (a dead worker's runs move on after it). */
  leaseMs: number;
  providerKeys: ProviderKeys;
  /** CIDR ranges server-side fetches may reach although they are private, loopback or link-local. */
  fetchAllow: string[];
  /** Module specifiers of operator plugin modules, loaded at start after the first-party plugins. */
  plugins: string[];
  /** Bearer token for `GET /metrics` (the admin token serves when unset). */
  metricsToken: string | undefined;
  /** Port of the management listener (`/metrics`, `/healthz`, `/readyz` without a credential); unset: none. */
  metricsPort: number | undefined;
  /** Delays before each webhook retry, in milliseconds (extensions §7); after the last, a delivery fails. */
  webhookRetryScheduleMs: number[];
  /** How often a firing process looks for due schedules, in milliseconds (extensions §8). */
  schedulePollMs: number;
  tracing: TracingConfig;
}

/**
 * OpenTelemetry traces (extensions §3): on when an OTLP endpoint is set. The SDK reads the other
 * standard `OTEL_*` variables itself (service name, protocol, headers, sampler, batching).
 */
export interface TracingConfig {
  enabled: boolean;
  /** `OTEL_SERVICE_NAME`, `agent-runs` by default. */
  serviceName: string;
  /** Prompts, replies and tool arguments and results are recorded on spans (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`). */
  captureMessageContent: boolean;
}

/**
 * Which proxies' X-Forwarded-For to believe for the client address (sign-in throttling, logs):
 * none (false), all (true), the nearest N hops, or the listed addresses and ranges.
 */
export type TrustProxy = boolean | number | string[];

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const nonEmpty = z.string().trim().min(1);

const envSchema = z.object({
  PORT: z
    .string()
    .regex(/^\d+$/, 'must be a whole number from 0 to 65535')
    .transform(Number)
    .refine((port) => port <= 65535, 'must be a whole number from 0 to 65535')
    .default(8080),
  HOST: nonEmpty.default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .trim()
    .refine(
      (url) => /^sqlite:.+/.test(url) || /^postgres(ql)?:\/\/.+/.test(url),
      'must be sqlite:<path> or postgres://…',
    )
    .default('sqlite:./data/agent-runs.db'),
  REDIS_URL: z
    .string()
    .trim()
    .regex(/^rediss?:\/\/.+/, 'must be a redis:// or rediss:// URL')
    .optional(),
  AGENT_RUNS_ROLE: z.enum(['all', 'api', 'worker'], { error: 'must be all, api or worker' }).default('all'),
  // Any value the operator sets is taken (the operator contract sets no length); short ones get a warning.
  AGENT_RUNS_ADMIN_TOKEN: z.string().optional(),
  AGENT_RUNS_PUBLIC_URL: z
    .string()
    .trim()
    .regex(/^https?:\/\/[^\s]+$/, 'must be an http:// or https:// URL')
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
  AGENT_RUNS_SECRET: z.string().optional(),
  AGENT_RUNS_WORKER_CONCURRENCY: z
    .string()
    .regex(/^[1-9]\d*$/, 'must be a whole number from 1 to 10000')
    .transform(Number)
    .refine((value) => value <= 10_000, 'must be a whole number from 1 to 10000')
    .default(256),
  AGENT_RUNS_MODEL_THREADS: z
    .string()
    .regex(/^\d+$/, 'must be a whole number from 0 to 64')
    .transform(Number)
    .refine((value) => value <= 64, 'must be a whole number from 0 to 64')
    .optional(),
  AGENT_RUNS_REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 letters, digits, dots, dashes or underscores')
    .default('agent-runs'),
  AGENT_RUNS_LEASE_MS: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of milliseconds from 1000 to 600000')
    .transform(Number)
    .refine(
      (value) => value >= 1000 && value <= 600_000,
      'must be a whole number of milliseconds from 1000 to 600000',
    )
    .default(15_000),
  AGENT_RUNS_FETCH_ALLOW: z
    .string()
    .transform(commaList)
    .refine(
      (ranges) => ranges.every((range) => ipaddr.isValidCIDR(range)),
      'must be a comma-separated list of CIDR ranges, such as 127.0.0.0/8,::1/128',
    )
    .optional(),
  AGENT_RUNS_PLUGINS: z.string().transform(commaList).optional(),
  AGENT_RUNS_WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .transform(commaList)
    .refine(
      (delays) => delays.every((delay) => /^\d+$/.test(delay) && Number(delay) <= 7 * 24 * 3_600_000),
      'must be a comma-separated list of delays in whole milliseconds (each at most 7 days), such as 5000,300000',
    )
    .transform((delays) => delays.map(Number))
    .optional(),
  AGENT_RUNS_SCHEDULE_POLL_MS: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of milliseconds from 100 to 60000')
    .transform(Number)
    .refine((ms) => ms >= 100 && ms <= 60_000, 'must be a whole number of milliseconds from 100 to 60000')
    .default(1_000),
  AGENT_RUNS_METRICS_TOKEN: z.string().optional(),
  AGENT_RUNS_METRICS_PORT: z
    .string()
    .regex(/^\d+$/, 'must be a whole number from 0 to 65535')
    .transform(Number)
    .refine((port) => port <= 65535, 'must be a whole number from 0 to 65535')
    .optional(),
  AGENT_RUNS_TRUST_PROXY: z
    .string()
    .trim()
    .transform((value): TrustProxy => {
      if (value === 'true') return true;
      if (value === 'false') return false;
      if (/^\d+$/.test(value)) return Number(value);
      return commaList(value);
    })
    .refine(
      (value) =>
        !Array.isArray(value) || value.every((entry) => ipaddr.isValid(entry) || ipaddr.isValidCIDR(entry)),
      'must be true, false, a number of proxy hops, or a comma-separated list of proxy addresses or CIDR ranges',
    )
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // OpenTelemetry's standard variables: the SDK reads them itself; named here so a bad value fails at start.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.enum(['http/protobuf', 'http/json']).optional(),
  OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
  OTEL_SERVICE_NAME: nonEmpty.optional(),
  OTEL_TRACES_SAMPLER: z.string().optional(),
  OTEL_TRACES_SAMPLER_ARG: z.string().optional(),
  OTEL_BSP_SCHEDULE_DELAY: z.string().regex(/^\d+$/, 'must be a whole number of milliseconds').optional(),
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: z.enum(['true', 'false']).optional(),
  OPENAI_API_KEY: nonEmpty.optional(),
  ANTHROPIC_API_KEY: nonEmpty.optional(),
  GOOGLE_GENERATIVE_AI_API_KEY: nonEmpty.optional(),
});

/** Environment → typed Config. The only reader of process.env; every bad value is named in one error. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const storage: StorageConfig = e.DATABASE_URL.startsWith('sqlite:')
    ? { engine: 'sqlite', path: e.DATABASE_URL.slice('sqlite:'.length), url: e.DATABASE_URL }
    : { engine: 'postgres', url: e.DATABASE_URL };
  const providerKeys: Config['providerKeys'] = {};
  if (e.OPENAI_API_KEY) providerKeys.openai = e.OPENAI_API_KEY;
  if (e.ANTHROPIC_API_KEY) providerKeys.anthropic = e.ANTHROPIC_API_KEY;
  if (e.GOOGLE_GENERATIVE_AI_API_KEY) providerKeys.google = e.GOOGLE_GENERATIVE_AI_API_KEY;
  return {
    port: e.PORT,
    host: e.HOST,
    storage,
    redisUrl: e.REDIS_URL,
    role: e.AGENT_RUNS_ROLE,
    adminToken: e.AGENT_RUNS_ADMIN_TOKEN,
    publicUrl: e.AGENT_RUNS_PUBLIC_URL,
    trustProxy: e.AGENT_RUNS_TRUST_PROXY ?? false,
    secret: e.AGENT_RUNS_SECRET,
    logLevel: e.LOG_LEVEL,
    workerConcurrency: e.AGENT_RUNS_WORKER_CONCURRENCY,
    modelThreads: e.AGENT_RUNS_MODEL_THREADS ?? defaultModelThreads(),
    leaseMs: e.AGENT_RUNS_LEASE_MS,
    redisPrefix: e.AGENT_RUNS_REDIS_PREFIX,
    providerKeys,
    fetchAllow: e.AGENT_RUNS_FETCH_ALLOW ?? [],
    plugins: e.AGENT_RUNS_PLUGINS ?? [],
    metricsToken: e.AGENT_RUNS_METRICS_TOKEN,
    metricsPort: e.AGENT_RUNS_METRICS_PORT,
    webhookRetryScheduleMs: e.AGENT_RUNS_WEBHOOK_RETRY_SCHEDULE ?? [...DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS],
    schedulePollMs: e.AGENT_RUNS_SCHEDULE_POLL_MS,
    tracing: {
      enabled:
        e.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined,
      serviceName: e.OTEL_SERVICE_NAME ?? 'agent-runs',
      captureMessageContent: e.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT === 'true',
    },
  };
}

function commaList(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/** One core stays with the event loop; the model threads take the others, up to four. */
function defaultModelThreads(): number {
  return Math.min(4, availableParallelism() - 1);
}

/** Rules that depend on which process is starting, checked after parsing. */
export function assertRoleRequirements(config: Config): void {
  if (config.role !== 'all' && (!config.redisUrl || config.storage.engine !== 'postgres')) {
    throw new ConfigError(
      `invalid configuration:\n  AGENT_RUNS_ROLE=${config.role} needs REDIS_URL and a postgres:// DATABASE_URL (separate processes share state through them)`,
    );
  }
}

/** The `http://HOST:PORT` of a listener bound to `host` (an IPv6 address in brackets). */
export function listenerUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
