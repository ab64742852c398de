import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from '../../src/cli/run-command.ts';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const MAIN = join(REPO, 'src/cli/main.ts');
export const BIN = join(REPO, 'bin/agent-runs.js');

/** Variables the service reads: a child gets only the ones a test sets, never the caller's. */
const SERVICE_VARIABLE =
  /^(AGENT_RUNS_|DATABASE_URL$|REDIS_URL$|PORT$|HOST$|LOG_LEVEL$|OPENAI_|ANTHROPIC_|GOOGLE_|OTEL_)/;

/**
 * Children keep Node's compile cache (type-stripped, compiled modules) as `bin/agent-runs.js` does:
 * a third of each start is spent stripping types, and the suites start a hundred CLI processes.
 */
export const COMPILE_CACHE = { NODE_COMPILE_CACHE: join(tmpdir(), 'agent-runs-test-compile-cache') };

export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...COMPILE_CACHE };
  for (const [name, value] of Object.entries(process.env))
    if (!SERVICE_VARIABLE.test(name)) env[name] = value;
  return { ...env, ...extra };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `agent-runs <args>` as a child process to its exit, collecting its output. */
export function runCli(
  args: readonly string[],
  env: Record<string, string>,
  options: { entry?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [options.entry ?? MAIN, ...args], {
      cwd: REPO,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `agent-runs ${args.join(' ')} did not exit within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`,
        ),
      );
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Runs `agent-runs <args>` as a function in this process, on exactly the variables given: the same
 * command code as the binary (src/cli/main.ts only hands it process.argv, process.env and the streams).
 * For a command that exits; serve, dev and worker keep running and are started as processes.
 */
export async function runCliInProcess(
  args: readonly string[],
  env: Record<string, string>,
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCommand(args, {
    env: { ...env },
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code: code ?? null, stdout, stderr };
}
