import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseArgs as parseAdminArgs, toAdminRequest } from '../../src/cli/admin-command.ts';
import { generateOpenApiDocument, OPENAPI_USAGE } from '../../src/cli/openapi.ts';
import { REPO } from './markdown.ts';
import { splitAssignments, type ShellCommand } from './shell-commands.ts';
import { isAllowedUrl } from './urls.ts';

/**
 * Shell variables the docs' examples set for the reader (an API key, a base URL, ids copied from
 * an answer): not configuration, so not looked up in src/config.ts.
 */
export const EXAMPLE_SHELL_VARIABLES: ReadonlySet<string> = new Set(['KEY', 'WS', 'RUN', 'CALL']);

/** Node's own variables the docs name. */
const NODE_VARIABLES = ['NODE_OPTIONS', 'NODE_COMPILE_CACHE', 'NODE_DISABLE_COMPILE_CACHE'];

/** What the checks compare the docs with, read once from the real code. */
export interface CommandFacts {
  scripts: Record<string, Record<string, string>>;
  cliCommands: Set<string>;
  configVariables: Set<string>;
  knownVariables: Set<string>;
  benchFlags: Set<string>;
  /** Every operation of the OpenAPI document, as `METHOD /path/{param}`. */
  operations: Array<{ method: string; pattern: RegExp; path: string }>;
}

function packageScripts(path: string): Record<string, string> {
  const json: unknown = JSON.parse(readFileSync(join(REPO, path), 'utf8'));
  const scripts = typeof json === 'object' && json !== null && 'scripts' in json ? json.scripts : {};
  return typeof scripts === 'object' && scripts !== null ? (scripts as Record<string, string>) : {};
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(REPO, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name));
}

export async function gatherFacts(): Promise<CommandFacts> {
  // The CLI's own --help, in its own process while the OpenAPI document is built in this one.
  const helpRun = promisify(execFile)(process.execPath, [join(REPO, 'src/cli/main.ts'), '--help'], {
    encoding: 'utf8',
  });
  const document = await generateOpenApiDocument();
  const help = (await helpRun).stdout;
  const commandsSection = help.slice(help.indexOf('commands:'));
  const cliCommands = new Set(
    [...commandsSection.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((match) => match[1] ?? ''),
  );
  const config = readFileSync(join(REPO, 'src/config.ts'), 'utf8');
  const configVariables = new Set(
    [...config.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((match) => match[1] ?? ''),
  );
  // Variables of the test support and CI (the deployments, the test databases), read where they are used.
  const elsewhere = [...filesUnder('test/support'), ...filesUnder('test/scale'), '.ci/run', 'package.json']
    .map((path) => readFileSync(join(REPO, path), 'utf8'))
    .join('\n');
  const knownVariables = new Set([
    ...configVariables,
    ...NODE_VARIABLES,
    ...[...elsewhere.matchAll(/\b(AGENT_RUNS_[A-Z0-9_]+|CHROMIUM_PATH)\b/g)].map((match) => match[1] ?? ''),
  ]);
  const bench = readFileSync(join(REPO, 'bench/run.ts'), 'utf8');
  const benchOptions = bench.slice(
    bench.indexOf('parseArgs({'),
    bench.indexOf('});', bench.indexOf('parseArgs({')),
  );
  const benchFlags = new Set(
    [...benchOptions.matchAll(/^ {4}'?([a-z][a-z-]*)'?: \{ type:/gm)].map((match) => match[1] ?? ''),
  );
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>;
  const operations = Object.entries(paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => ['get', 'post', 'put', 'patch', 'delete'].includes(key))
      .map((method) => ({
        method: method.toUpperCase(),
        path,
        pattern: new RegExp(
          `^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`,
        ),
      })),
  );
  return {
    scripts: {
      '': packageScripts('package.json'),
      '@agent-runs/client': packageScripts('packages/client/package.json'),
    },
    cliCommands,
    configVariables,
    knownVariables,
    benchFlags,
    operations,
  };
}

/** Why a command of the docs does not hold against the code, or undefined when it does. */
export function commandProblem(command: ShellCommand, facts: CommandFacts): string | undefined {
  const { assignments, rest } = splitAssignments(command.words);
  for (const { name } of assignments) {
    if (!facts.knownVariables.has(name) && !EXAMPLE_SHELL_VARIABLES.has(name)) {
      return `sets ${name}, which neither src/config.ts nor the test support reads`;
    }
  }
  const [program, ...args] = rest;
  switch (program) {
    case undefined:
      return undefined;
    case 'npm':
      return npmProblem(args, facts);
    case 'npx':
      if (args[0] === 'agent-runs') return cliProblem(args.slice(1), facts);
      return existsSync(join(REPO, 'node_modules/.bin', args[0] ?? ''))
        ? undefined
        : `runs npx ${args[0] ?? ''}, which no installed package provides`;
    case 'agent-runs':
      return cliProblem(args, facts);
    case 'node':
      return nodeProblem(args);
    case 'curl':
      return curlProblem(args, facts);
    case '.ci/run':
      return existsSync(join(REPO, '.ci/run')) ? undefined : '.ci/run does not exist';
    default:
      return `runs ${program}, which the docs check cannot classify (teach test/docs/command-checks.ts)`;
  }
}

function npmProblem(args: readonly string[], facts: CommandFacts): string | undefined {
  const [verb, ...rest] = args;
  if (verb === 'install' || verb === 'ci') return undefined;
  if (verb === 'test' || verb === 'start') {
    if (rest.length > 0) return `passes arguments to npm ${verb}`;
    return facts.scripts['']?.[verb] ? undefined : `npm ${verb}: no such script`;
  }
  if (verb !== 'run') return `runs npm ${verb ?? ''}, unknown here`;
  const [script, ...more] = rest;
  let workspace = '';
  let extra = more;
  if (more[0] === '-w' || more[0] === '--workspace') {
    workspace = more[1] ?? '';
    extra = more.slice(2);
  }
  if (!script || !facts.scripts[workspace]?.[script]) return `npm run ${script ?? ''}: no such script`;
  if (extra.length === 0) return undefined;
  if (extra[0] !== '--') return `npm run ${script}: unexpected ${extra.join(' ')}`;
  if (script !== 'bench') return `npm run ${script}: the check does not know its arguments`;
  const unknown = extra.slice(1).filter((arg) => arg.startsWith('--') && !facts.benchFlags.has(arg.slice(2)));
  return unknown.length === 0 ? undefined : `npm run bench: bench/run.ts takes no ${unknown.join(', ')}`;
}

function cliProblem(args: readonly string[], facts: CommandFacts): string | undefined {
  const [command, ...rest] = args;
  if (!command || !facts.cliCommands.has(command)) return `agent-runs has no command ${command ?? ''}`;
  // Both print their usage for --help before parsing anything else (src/cli/admin.ts, openapi.ts).
  if ((command === 'admin' || command === 'openapi') && rest.includes('--help')) return undefined;
  if (command === 'admin') {
    try {
      toAdminRequest(parseAdminArgs(rest));
      return undefined;
    } catch (error) {
      return `agent-runs admin refuses it: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  if (command === 'openapi') {
    const flags = rest.filter((arg) => arg.startsWith('--'));
    const unknown = flags.filter((flag) => !OPENAPI_USAGE.includes(flag.split('=')[0] ?? flag));
    return unknown.length === 0 ? undefined : `agent-runs openapi takes no ${unknown.join(', ')}`;
  }
  return rest.length === 0 ? undefined : `agent-runs ${command} takes no arguments`;
}

function nodeProblem(args: readonly string[]): string | undefined {
  const files = args.filter((arg) => !arg.startsWith('-'));
  if (files.length === 0) return 'runs node without a file';
  const missing = files.filter((file) => !existsSync(join(REPO, file)));
  return missing.length === 0 ? undefined : `runs ${missing.join(', ')}, which does not exist`;
}

const CURL_FLAGS_WITH_VALUE = new Set(['-X', '--request', '-H', '--header', '-d', '--data', '--data-raw']);

function curlProblem(args: readonly string[], facts: CommandFacts): string | undefined {
  let method: string | undefined;
  let body: string | undefined;
  let url: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? '';
    if (CURL_FLAGS_WITH_VALUE.has(arg)) {
      const value = args[++index] ?? '';
      if (arg === '-X' || arg === '--request') method = value;
      if (arg === '-d' || arg === '--data' || arg === '--data-raw') body = value;
    } else if (arg.startsWith('-')) {
      if (!/^-[sSNfiv]+$/.test(arg)) return `curl: the check does not know ${arg}`;
    } else if (url === undefined) {
      url = arg;
    } else {
      return `curl: a second URL ${arg}`;
    }
  }
  if (!url || !/^https?:\/\//.test(url)) return `curl: no URL the check can read (${url ?? 'none'})`;
  if (!isAllowedUrl(url)) return `curl: ${url} is not on loopback`;
  const verb = method ?? (body === undefined ? 'GET' : 'POST');
  const path = new URL(url.replace(/\$\w+/g, 'x')).pathname;
  if (!facts.operations.some((operation) => operation.method === verb && operation.pattern.test(path))) {
    return `curl: ${verb} ${path} is no operation of the OpenAPI document`;
  }
  if (body !== undefined) {
    try {
      JSON.parse(body);
    } catch {
      return `curl: the body is not JSON: ${body.slice(0, 80)}`;
    }
  }
  return undefined;
}
