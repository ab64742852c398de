import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { childEnv, REPO } from './cli.ts';
import { WAIT_CAP_MS } from './waits.ts';
import type { TestWorkerOptions } from './worker-process.ts';

const WORKER_ENTRY = new URL('./worker-process.ts', import.meta.url).pathname;

/** The output a worker keeps for the message of an unexpected exit. */
const OUTPUT_TAIL_CHARS = 8000;

export interface WorkerChild {
  /** Stops the worker as an operator does (SIGTERM: runs in progress handed over), SIGKILL past the cap. */
  stop(): Promise<void>;
  /** Kills the worker at once, as a crash would. */
  kill(): Promise<void>;
}

/**
 * Starts the scale-out deployment's worker process and resolves once it takes runs. Its log lines
 * (JSON, one per line) go to `logLines` when given; an exit nobody asked for is reported on stderr
 * with the end of its output, so a test that then waits in vain says why.
 */
export async function startWorkerChild(
  env: Record<string, string>,
  options: TestWorkerOptions,
  logLines?: string[],
): Promise<WorkerChild> {
  const child = spawn(
    process.execPath,
    ['--conditions=@agent-runs/source', '--max-semi-space-size=4', WORKER_ENTRY],
    {
      cwd: REPO,
      env: childEnv({
        ...env,
        LOG_LEVEL: logLines ? 'info' : (env.LOG_LEVEL ?? 'warn'),
        AGENT_RUNS_ROLE: 'worker',
        AGENT_RUNS_TEST_WORKER_OPTIONS: JSON.stringify(options),
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  let pending = '';
  let stopping = false;
  const keep = (chunk: string) => {
    output = (output + chunk).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    keep(chunk);
    if (!logLines) return;
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('{')) logLines.push(line);
  });
  child.stderr?.setEncoding('utf8').on('data', keep);
  child.on('exit', (code, signal) => {
    if (!stopping) {
      process.stderr.write(
        `test worker process exited unexpectedly (code ${code}, signal ${signal}); its output ended:\n${output}\n`,
      );
    }
  });
  await waitForReady(child, () => output);
  const end = async (signal: NodeJS.Signals) => {
    stopping = true;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_CAP_MS);
    await exited;
    clearTimeout(timer);
  };
  return { stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
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
  });
}
