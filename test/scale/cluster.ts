import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import pg from 'pg';
import { COMPILE_CACHE } from '../support/cli.ts';
import { TEST_POSTGRES_URL, TEST_REDIS_URL } from '../support/engines.ts';
import { cloneTemplate } from '../support/postgres-template.ts';
import { WAIT_CAP_MS } from '../support/waits.ts';

const MAIN = new URL('../../src/cli/main.ts', import.meta.url).pathname;

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  stdout: string;
  baseUrl?: string;
  /** Resolves when `pattern` appears on stdout (or rejects on exit/timeout). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

export interface Cluster {
  env: Record<string, string>;
  adminToken: string;
  apis: ServiceProcess[];
  workers: ServiceProcess[];
  startApi(name: string): Promise<ServiceProcess>;
  startWorker(name: string): Promise<ServiceProcess>;
  /** Every process started so far (the killed ones too). */
  processes(): readonly ServiceProcess[];
  stop(): Promise<void>;
}

/**
 * A real scale-out deployment on this machine: its own PostgreSQL database and
 * Redis prefix, then API and worker processes started with the `agent-runs` CLI exactly as an
 * operator would. By default the database is a new one on the machine's shared server, cloned from
 * the migrated template (`postgres-template.ts`): `agent-runs migrate` on the shared server took
 * about 2 s per cluster on a quiet machine and 20-30 s on a loaded one, the clone 0.4 s and 2-3 s. With `databaseUrl` and `redisUrl`
 * (a test's private servers, see `private-servers.ts`) the deployment uses those as they are, and
 * runs `agent-runs migrate` on them first as an operator would.
 */
export async function startCluster(options: {
  apis: number;
  workers: number;
  leaseMs?: number;
  env?: Record<string, string>;
  databaseUrl?: string;
  redisUrl?: string;
}): Promise<Cluster> {
  const id = randomBytes(5).toString('hex');
  const database = options.databaseUrl === undefined ? `agent_runs_scale_${id}` : undefined;
  if (database) await cloneTemplate(TEST_POSTGRES_URL, database);
  const url = new URL(options.databaseUrl ?? TEST_POSTGRES_URL);
  if (database) url.pathname = `/${database}`;
  const adminToken = randomBytes(24).toString('base64url');
  const env: Record<string, string> = {
    DATABASE_URL: url.toString(),
    REDIS_URL: options.redisUrl ?? TEST_REDIS_URL,
    AGENT_RUNS_REDIS_PREFIX: `ar-test-${id}`,
    AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
    AGENT_RUNS_ADMIN_TOKEN: adminToken,
    AGENT_RUNS_LEASE_MS: String(options.leaseMs ?? 2000),
    LOG_LEVEL: 'info',
    PORT: '0',
    ...options.env,
  };
  if (!database) {
    const migrate = spawnService('migrate', ['migrate'], env);
    const [code] = (await once(migrate.child, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`migrate failed: ${migrate.stdout}`);
  }

  const all: ServiceProcess[] = [];
  const startApi = async (name: string) => {
    const api = spawnService(name, ['serve'], { ...env, AGENT_RUNS_ROLE: 'api' });
    all.push(api);
    const [, baseUrl] = await api.waitFor(/listening on (http:\/\/\S+)/);
    api.baseUrl = baseUrl ?? '';
    return api;
  };
  let workersStarted = 0;
  const startWorker = async (name: string) => {
    // Every other worker is `serve` with AGENT_RUNS_ROLE=worker: one command for every replica works too.
    const worker =
      workersStarted++ % 2 === 0
        ? spawnService(name, ['worker'], env)
        : spawnService(name, ['serve'], { ...env, AGENT_RUNS_ROLE: 'worker' });
    all.push(worker);
    await worker.waitFor(/worker ready/);
    return worker;
  };
  const stop = async () => {
    await Promise.all(all.map((service) => service.kill('SIGKILL')));
    if (database) await adminQuery(`drop database if exists ${database} with (force)`);
  };
  try {
    // The APIs, then the workers: each start has its own wait cap, which processes starting all at
    // once on a loaded 2-core machine overran.
    const apis = await Promise.all(
      Array.from({ length: options.apis }, (_, index) => startApi(`api${index + 1}`)),
    );
    const workers = await Promise.all(
      Array.from({ length: options.workers }, (_, index) => startWorker(`worker${index + 1}`)),
    );
    return { env, adminToken, apis, workers, startApi, startWorker, processes: () => all, stop };
  } catch (error) {
    // A test whose `before` failed has no cluster to stop: its processes would keep the file running.
    await stop();
    throw error;
  }
}

function spawnService(name: string, args: string[], env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, [MAIN, ...args], {
    // Node's compile cache as `bin/agent-runs.js` keeps it: without it every process strips types anew.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...COMPILE_CACHE, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const service: ServiceProcess = {
    name,
    child,
    stdout: '',
    waitFor: (pattern, timeoutMs = WAIT_CAP_MS) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = service.stdout.match(pattern);
          if (!match) return false;
          cleanup();
          resolve(match);
          return true;
        };
        const onData = () => check();
        const onExit = () => {
          cleanup();
          reject(new Error(`${name} exited before ${pattern}: ${service.stdout.slice(-2000)}`));
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${name}: no ${pattern} within ${timeoutMs} ms: ${service.stdout.slice(-2000)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          child.stdout?.off('data', onData);
          child.off('exit', onExit);
        };
        child.stdout?.on('data', onData);
        child.on('exit', onExit);
        check();
      }),
    kill: async (signal) => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    service.stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    service.stdout += chunk.toString();
  });
  return service;
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * Creates workspace `acme` through the admin API of `baseUrl`, with an API key and a default
 * Anthropic provider served by the fake at `fakeUrl`; returns the API key.
 */
export async function provisionAcme(baseUrl: string, adminToken: string, fakeUrl: string): Promise<string> {
  const admin = async (path: string, body: unknown) => {
    const response = await fetch(`${baseUrl}/admin/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Record<string, string>;
  };
  await admin('/workspaces', { slug: 'acme' });
  const { key } = await admin('/workspaces/acme/api-keys', {});
  await admin('/workspaces/acme/providers', {
    provider: 'anthropic',
    baseUrl: fakeUrl,
    apiKey: 'sk-fake',
    models: [{ vendorModelId: 'fake-model' }],
    isDefault: true,
  });
  return key as string;
}
