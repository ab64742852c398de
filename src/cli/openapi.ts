import { randomBytes } from 'node:crypto';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { createService } from '../main.ts';
import type { CliIo } from './cli-io.ts';
import { UsageError } from './admin-command.ts';

export const OPENAPI_USAGE = `usage: agent-runs openapi [--public-url URL]

Prints the OpenAPI 3.1 document (JSON) of the service with every route, the admin API included,
built in-process on a throwaway in-memory database: no server, no DATABASE_URL needed.
--public-url (default: AGENT_RUNS_PUBLIC_URL) becomes the server URL and the base of the OAuth URLs;
without it they are relative to where the document is served.`;

/** `agent-runs openapi`: the OpenAPI document on stdout (what `GET /openapi.json` serves). */
export async function openapi(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.includes('--help') || argv[0] === 'help') {
    io.stdout.write(`${OPENAPI_USAGE}\n`);
    return 0;
  }
  const document = await generateOpenApiDocument({ publicUrl: publicUrlOf(argv, io.env) });
  io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  return 0;
}

/**
 * The document a server with every route serves, without a server: the service is composed on an
 * in-memory database with the admin API enabled, asked for `/openapi.json` in-process, and closed.
 */
export async function generateOpenApiDocument(
  options: { publicUrl?: string | undefined } = {},
): Promise<Record<string, unknown>> {
  const config = loadConfig({
    DATABASE_URL: 'sqlite::memory:',
    AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
    ...(options.publicUrl && { AGENT_RUNS_PUBLIC_URL: options.publicUrl }),
  });
  const service = await createService(config, {
    logger: createLogger('error', 2),
    dev: false,
    internalAdmin: true,
  });
  try {
    const response = await service.app.inject({ method: 'GET', url: '/openapi.json' });
    if (response.statusCode !== 200) throw new Error(`/openapi.json answered ${response.statusCode}`);
    return response.json();
  } finally {
    await service.close();
  }
}

function publicUrlOf(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  const [flag, value, ...rest] = argv;
  if (flag === undefined) return env.AGENT_RUNS_PUBLIC_URL || undefined;
  if (flag.startsWith('--public-url=') && value === undefined) return flag.slice('--public-url='.length);
  if (flag === '--public-url' && value !== undefined && rest.length === 0) return value;
  throw new UsageError(`openapi: unexpected arguments '${argv.join(' ')}'\n\n${OPENAPI_USAGE}`);
}
