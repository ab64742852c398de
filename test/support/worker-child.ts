import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { childEnv, REPO } from './cli.ts';
import { WAIT_CAP_MS } from './waits.ts';
import type { TestWorkerSetup } from './worker-process.ts';

const WORKER_ENTRY = new URL('./worker-process.ts', import.meta.url).pathname;

/** The output a worker keeps for the message of an unexpected exit. */
const OUTPUT_TAIL_CHARS = 8000;

export interface WorkerChild {
  /** Its management listener (`AGENT_RUNS_METRICS_PORT` in the deployment's environment), as it printed it. */
  metricsUrl: string | undefined;
  /** Stops the worker as an operator does (SIGTERM: runs in progress handed over), SIGKILL past the cap. */
  stop(): Promise<void>;
}

interface Standby {
  child: ChildProcess;
  /** The end of its output so far. */
  output(): string;
}

/** A worker process started ahead of need, its imports done, waiting for its deployment on stdin. */
let standby: Standby | undefined;

/**
 * Starts the scale-out deployment's worker process and resolves once it takes runs. Its log lines
 * (JSON, one per line) go to `logLines` when given; an exit nobody asked for is reported on stderr
 * with the end of its output, so a test that then waits in vain says why.
 */
export async function startWorkerChild(setup: TestWorkerSetup, logLines?: string[]): Promise<WorkerChild> {
  const taken = standby ?? spawnStandby();
  standby = undefined;
  const { child, output } = taken;
  keepsTestAlive(child, true);
  let pending = '';
  if (logLines) {
    child.stdout?.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('{')) logLines.push(line);
    });
  }
  let stopping = false;
  child.on('exit', (code, signal) => {
    if (!stopping) {
      process.stderr.write(
        `test worker process exited unexpectedly (code ${code}, signal ${signal}); its output ended:\n${output()}\n`,
      );
    }
  });
  const ready = waitForReady(child, output);
  child.stdin?.end(
    `${JSON.stringify({
      ...setup,
      env: { ...setup.env, LOG_LEVEL: logLines ? 'info' : (setup.env.LOG_LEVEL ?? 'warn') },
    })}\n`,
  );
  await ready;
  // The next deployment's worker gets ready while this one's test runs, not while this one starts:
  // two processes importing at once on a loaded 2-core machine slow each other down.
  standby = spawnStandby();
  return {
    metricsUrl: /^metrics listening on (\S+)$/m.exec(output())?.[1],
    stop: async () => {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_CAP_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Spawns the worker process ahead of need, when there is none waiting: its imports (most of a start)
 * then overlap the rest of the deployment's set-up (the database, the API) instead of following it.
 */
export function prepareWorkerChild(): void {
  standby ??= spawnStandby();
}

/** Spawned unreferenced: a standby never keeps the test process alive, and ends when its stdin does. */
function spawnStandby(): Standby {
  const child = spawn(
    process.execPath,
    ['--conditions=@agent-runs/source', '--max-semi-space-size=4', WORKER_ENTRY],
    { cwd: REPO, env: childEnv({ AGENT_RUNS_ROLE: 'worker' }), stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: string) => {
    output = (output + chunk).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.setEncoding('utf8').on('data', keep);
  child.stderr?.setEncoding('utf8').on('data', keep);
  keepsTestAlive(child, false);
  return { child, output: () => output };
}

/** Whether the child (its process and its pipes, which are sockets) keeps the test process running. */
function keepsTestAlive(child: ChildProcess, keeps: boolean): void {
  const pipes = [child.stdin, child.stdout, child.stderr] as (Socket | null)[];
  for (const handle of [child, ...pipes]) {
    if (keeps) handle?.ref();
    else handle?.unref();
  }
}

function waitForReady(child: ChildProcess, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      child.kill('SIGKILL');
      reject(new Error(`the test worker did not start within ${WAIT_CAP_MS} ms: ${output()}`));
    }, WAIT_CAP_MS);
    const onData = () => {
      if (!/^worker ready$/m.test(output())) return;
      cleanup();
      resolve();
    };
    const onExit = () => {
      cleanup();
      reject(new Error(`the test worker exited before it was ready: ${output()}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout?.on('data', onData);
    child.on('exit', onExit);
    onData();
  });
}
