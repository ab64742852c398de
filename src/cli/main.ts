import { ConfigError } from '../config.ts';
import { admin } from './admin.ts';
import { UsageError } from './admin-command.ts';
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

configuration comes from the environment; see the README.`;

async function main(argv: readonly string[]): Promise<number | undefined> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      await serve('serve');
      return undefined;
    case 'dev':
      await serve('dev');
      return undefined;
    case 'worker':
      await worker();
      return undefined;
    case 'migrate':
      await migrate();
      return 0;
    case 'admin':
      return admin(rest);
    case 'openapi':
      return openapi(rest);
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`agent-runs: unknown command '${command}'\n\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    const known = error instanceof ConfigError || error instanceof UsageError;
    process.stderr.write(
      `agent-runs: ${known ? error.message : ((error as Error)?.stack ?? String(error))}\n`,
    );
    process.exitCode = known ? 2 : 1;
  },
);
