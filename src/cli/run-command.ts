import { ConfigError } from '../config.ts';
import { admin } from './admin.ts';
import { UsageError } from './admin-command.ts';
import type { CliIo } from './cli-io.ts';
import { migrate } from './migrate.ts';
import { openapi } from './openapi.ts';
import { serve } from './serve.ts';
import { worker } from './worker.ts';

const USAGE = `usage: agent-runs <command>

commands:
  serve     production server (API and, with AGENT_RUNS_ROLE=all, the worker)
  dev       dev mode (what npm start runs): embedded storage, bootstrap workspace, offline mock model
  worker    a worker process only (needs REDIS_URL and a postgres:// DATABASE_URL)
  migrate   apply database migrations and exit
  admin     the admin API as a CLI (agent-runs admin --help)
  openapi   print the OpenAPI 3.1 document (agent-runs openapi --help)

configuration comes from the environment; see docs/configuration.md.`;

/**
 * `agent-runs <argv>`: runs the command and answers its exit code, or undefined for a command that
 * keeps running (serve, dev, worker). A configuration or usage error exits 2, anything else 1.
 */
export async function runCommand(argv: readonly string[], io: CliIo): Promise<number | undefined> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    const known = error instanceof ConfigError || error instanceof UsageError;
    const detail = known
      ? error.message
      : error instanceof Error
        ? (error.stack ?? String(error))
        : String(error);
    io.stderr.write(`agent-runs: ${detail}\n`);
    return known ? 2 : 1;
  }
}

async function dispatch(argv: readonly string[], io: CliIo): Promise<number | undefined> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      await serve('serve', io);
      return undefined;
    case 'dev':
      await serve('dev', io);
      return undefined;
    case 'worker':
      await worker(io);
      return undefined;
    case 'migrate':
      await migrate(io);
      return 0;
    case 'admin':
      return admin(rest, io);
    case 'openapi':
      return openapi(rest, io);
    case undefined:
    case 'help':
    case '--help':
      io.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    default:
      io.stderr.write(`agent-runs: unknown command '${command}'\n\n${USAGE}\n`);
      return 2;
  }
}
