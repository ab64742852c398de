import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { createService } from '../main.ts';
import type { CliIo } from './cli-io.ts';
import { ADMIN_USAGE, parseArgs, toAdminRequest, UsageError, type AdminRequest } from './admin-command.ts';

interface AdminResponse {
  status: number;
  body: unknown;
}

/** `agent-runs admin …`: the admin API as a CLI, in-process on DATABASE_URL or against a server with --url. */
export async function admin(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv.includes('--help')) {
    io.stdout.write(`${ADMIN_USAGE}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  let request: AdminRequest;
  let args;
  try {
    args = parseArgs(argv);
    request = toAdminRequest(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`agent-runs admin: ${error.message}\n\n${ADMIN_USAGE}\n`);
    return 2;
  }
  const config = loadConfig(io.env);
  const response = args.url
    ? await sendRemote(args.url, config.adminToken, request)
    : await sendInProcess(config, request);
  const ok = response.status >= 200 && response.status < 300;
  if (args.json) {
    if (response.body !== undefined) io.stdout.write(`${JSON.stringify(response.body)}\n`);
  } else {
    const out = ok ? io.stdout : io.stderr;
    out.write(`${request.method} /admin/v1${request.path} → ${response.status}\n`);
    if (response.body !== undefined) out.write(`${JSON.stringify(response.body, null, 2)}\n`);
  }
  return ok ? 0 : 1;
}

async function sendInProcess(
  config: ReturnType<typeof loadConfig>,
  request: AdminRequest,
): Promise<AdminResponse> {
  const service = await createService(config, {
    logger: createLogger('error', 2),
    dev: false,
    internalAdmin: true,
  });
  try {
    const response = await service.app.inject({
      method: request.method,
      url: `/admin/v1${request.path}`,
      headers: { authorization: `Bearer ${service.resources.adminToken ?? ''}` },
      ...(request.body !== undefined && { payload: request.body }),
    });
    return { status: response.statusCode, body: response.body === '' ? undefined : response.json() };
  } finally {
    await service.close();
  }
}

async function sendRemote(
  url: string,
  token: string | undefined,
  request: AdminRequest,
): Promise<AdminResponse> {
  if (!token) throw new UsageError('--url needs AGENT_RUNS_ADMIN_TOKEN in the environment');
  const response = await fetch(`${url.replace(/\/+$/, '')}/admin/v1${request.path}`, {
    method: request.method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(request.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}
