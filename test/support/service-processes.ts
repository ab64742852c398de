import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { childEnv, MAIN, REPO } from './cli.ts';
import { SCALE_OUT } from './deployment.ts';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from './engines.ts';
import { testServerAt, type TestResponse, type TestServer } from './served-service.ts';
import { WAIT_CAP_MS } from './waits.ts';

/**
 * The service as operators run it, every part a process of its own (`agent-runs serve`; scale-out:
 * `serve` with the API role plus `agent-runs worker` on PostgreSQL and Redis), so that what a process
 * sets up for itself (OpenTelemetry's globals) stays out of the test's process.
 */
export interface ServiceProcesses {
  baseUrl: string;
  /** The API process's management listener, with `AGENT_RUNS_METRICS_PORT` in the environment. */
  managementUrl?: string;
  adminToken: string;
  request: TestServer['request'];
  admin(method: string, path: string, body?: unknown): Promise<TestResponse>;
  /** Stops every process as an operator does (SIGTERM) and drops the database. */
  close(): Promise<void>;
}

export async function startServiceProcesses(env: Record<string, string>): Promise<ServiceProcesses> {
  const database: TestDatabase = await createTestDatabase(SCALE_OUT ? 'postgres' : 'sqlite');
  const adminToken = randomBytes(24).toString('base64url');
  const common: Record<string, string> = {
    PORT: '0',
    DATABASE_URL: database.config.url,
    AGENT_RUNS_ADMIN_TOKEN: adminToken,
    AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'warn',
    ...env,
    ...(SCALE_OUT && {
      REDIS_URL: TEST_REDIS_URL,
      AGENT_RUNS_REDIS_PREFIX: `ar-t-${randomBytes(5).toString('hex')}`,
    }),
  };
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(children.map((child) => stopChild(child)));
    await database.drop();
  };
  try {
    // The API first: it applies the migrations the worker then finds done.
    const api = startChild(['serve'], { ...common, ...(SCALE_OUT && { AGENT_RUNS_ROLE: 'api' }) });
    children.push(api.child);
    const baseUrl = (await api.printed(/^listening on (\S+)$/m))[1] ?? '';
    const managementUrl =
      env.AGENT_RUNS_METRICS_PORT === undefined
        ? undefined
        : (await api.printed(/^metrics listening on (\S+)$/m))[1];
    if (SCALE_OUT) {
      const worker = startChild(['worker'], { ...common, AGENT_RUNS_ROLE: 'worker' });
      children.push(worker.child);
      await worker.printed(/^worker ready$/m);
    }
    const { request, admin } = testServerAt(baseUrl, adminToken);
    return {
      baseUrl,
      ...(managementUrl !== undefined && { managementUrl }),
      adminToken,
      request,
      admin,
      close: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function startChild(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['--conditions=@agent-runs/source', MAIN, ...args], {
    cwd: REPO,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const printed = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`agent-runs ${args.join(' ')} did not start within ${WAIT_CAP_MS} ms: ${output}`));
      }, WAIT_CAP_MS);
      const check = () => {
        const match = pattern.exec(output);
        if (!match) return;
        cleanup();
        resolve(match);
      };
      const onExit = () => {
        cleanup();
        reject(new Error(`agent-runs ${args.join(' ')} exited before it started: ${output}`));
      };
      const cleanup = () => {
        clearTimeout(timer);
        child.stdout.off('data', check);
        child.off('exit', onExit);
      };
      child.stdout.on('data', check);
      child.on('exit', onExit);
      check();
    });
  return { child, printed };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_CAP_MS);
  await exited;
  clearTimeout(timer);
}
