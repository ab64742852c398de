import type { z } from 'zod';
import { createAgentSchema } from '../http/routes/admin/agents.ts';
import { createApiKeySchema } from '../http/routes/admin/api-keys.ts';
import { createOAuthAppSchema, createUserSchema } from '../http/routes/admin/identities.ts';
import { createOfferingSchema } from '../http/routes/admin/offerings.ts';
import { createProviderSchema } from '../http/routes/admin/providers.ts';
import { createToolSchema } from '../http/routes/admin/tools.ts';
import { createWorkspaceSchema, updateWorkspaceSchema } from '../http/routes/admin/workspaces.ts';

/** A parsed `agent-runs admin <resource> <action> [positionals] [--flags]` invocation, as an HTTP request. */
export interface AdminRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
}

export interface ParsedArgs {
  positionals: string[];
  /** `--field value` pairs as written (field names in camelCase); typed against the route's body in toAdminRequest. */
  flags: Record<string, string>;
  /** The `--data` object. */
  data: Record<string, unknown>;
  json: boolean;
  url: string | undefined;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

const WORKSPACE_SCOPED = [
  'api-keys',
  'providers',
  'agents',
  'tools',
  'users',
  'oauth-apps',
  'oauth-grants',
] as const;
export const ADMIN_RESOURCES = ['workspaces', 'offerings', ...WORKSPACE_SCOPED] as const;

export const ADMIN_USAGE = `usage: agent-runs admin <resource> <action> [args] [--field value ...] [--data JSON] [--json] [--url URL]

resources and actions:
  workspaces   create --slug S [--name N] [--features JSON] [--rate-limits JSON] [--max-concurrent-runs N]
               | list | get SLUG | delete SLUG
               | update SLUG [--name N] [--features JSON] [--rate-limits JSON] [--max-concurrent-runs N]
  offerings    create --provider P --vendor-model-id M [--api A] [--base-url U] [--api-key K] ... | list | delete ID
  api-keys     create WS [--name N] [--agent-ids '["agt_…"]'] [--usage developer_api|internal] | list WS | delete WS ID
  providers    create WS --provider P --models '[{"vendorModelId":"m"}]' [--api-key K] [--is-default true] | list WS | delete WS ID
  agents       create WS --name N --system-prompt P [--model-id M] [--tools JSON] ... | list WS | delete WS ID
  tools        create WS --name N --http '{"url":"https://…"}' [--parameters JSON] | list WS | delete WS ID
  users        create WS --email E --password P [--name N] | list WS | delete WS ID
  oauth-apps   create WS --name N --redirect-uris '["https://…"]' | list WS | delete WS ID
  oauth-grants list WS | delete WS ID   (what users allowed apps; deleting one ends the app's access)

--field value becomes body field "field" (dashes to camelCase); values that parse as JSON
(objects, arrays, numbers, true/false) are sent as such, unless the field takes that value
as a string (--slug 2024, --name true stay strings). --data JSON gives the whole body.
Without --url the CLI works in-process on DATABASE_URL; with --url it calls that server's
admin API with AGENT_RUNS_ADMIN_TOKEN. --json prints the response body only.`;

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags: Record<string, string> = {};
  let json = false;
  let url: string | undefined;
  let data: Record<string, unknown> = {};
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? '';
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const [rawName, inlineValue] = splitFlag(arg.slice(2));
    if (rawName === 'json') {
      json = true;
      continue;
    }
    const value = inlineValue ?? argv[++index];
    if (value === undefined) throw new UsageError(`--${rawName} needs a value`);
    if (rawName === 'url') url = value;
    else if (rawName === 'data') data = parseDataFlag(value);
    else flags[camelCase(rawName)] = value;
  }
  return { positionals, flags, data, json, url };
}

export function toAdminRequest(args: ParsedArgs): AdminRequest {
  const [resource, action, ...rest] = args.positionals;
  if (!resource || !(ADMIN_RESOURCES as readonly string[]).includes(resource)) {
    throw new UsageError(resource ? `unknown resource '${resource}'` : 'name a resource');
  }
  const scoped = (WORKSPACE_SCOPED as readonly string[]).includes(resource);
  const [workspace, id] = scoped ? [rest[0], rest[1]] : [undefined, rest[0]];
  if (scoped && !workspace) throw new UsageError(`${resource} ${action ?? ''}: name the workspace slug`);
  const collection = scoped ? `/workspaces/${enc(workspace)}/${resource}` : `/${resource}`;
  const needId = (what: string) => {
    if (!id)
      throw new UsageError(`${resource} ${what}: name the ${resource === 'workspaces' ? 'slug' : 'id'}`);
    return `${collection}/${enc(id)}`;
  };
  const body = (schema: BodySchema | undefined) => ({ ...args.data, ...typedFlags(args.flags, schema) });
  switch (action) {
    case 'create': {
      const schema = CREATE_BODIES[resource as AdminResource];
      if (!schema) throw new UsageError(`${resource} are not created here: users create them at consent`);
      return { method: 'POST', path: collection, body: body(schema) };
    }
    case 'list':
      return { method: 'GET', path: collection };
    case 'get':
      return { method: 'GET', path: needId('get') };
    case 'update':
      return {
        method: 'PATCH',
        path: needId('update'),
        body: body(resource === 'workspaces' ? updateWorkspaceSchema : undefined),
      };
    case 'delete':
      return { method: 'DELETE', path: needId('delete') };
    default:
      throw new UsageError(action ? `unknown action '${action}'` : `${resource}: name an action`);
  }
}

type AdminResource = (typeof ADMIN_RESOURCES)[number];
type BodySchema = z.ZodObject;

const CREATE_BODIES: Partial<Record<AdminResource, BodySchema>> = {
  workspaces: createWorkspaceSchema,
  offerings: createOfferingSchema,
  'api-keys': createApiKeySchema,
  providers: createProviderSchema,
  agents: createAgentSchema,
  tools: createToolSchema,
  users: createUserSchema,
  'oauth-apps': createOAuthAppSchema,
};

/**
 * Flag values typed by the field they fill: a value the field accepts as a
 * string stays a string (`--slug 2024`, `--name true`); otherwise one that
 * parses as JSON is sent as JSON (`--is-default true`, `--models '[…]'`).
 * Anything still wrong is left for the server to answer with its 400.
 */
function typedFlags(flags: Record<string, string>, schema: BodySchema | undefined): Record<string, unknown> {
  const typed: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(flags)) {
    const fieldSchema = schema?.shape[field] as z.ZodType | undefined;
    typed[field] = fieldSchema?.safeParse(value).success ? value : parseValue(value);
  }
  return typed;
}

function splitFlag(flag: string): [string, string | undefined] {
  const equals = flag.indexOf('=');
  return equals === -1 ? [flag, undefined] : [flag.slice(0, equals), flag.slice(equals + 1)];
}

function camelCase(name: string): string {
  return name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

function parseValue(value: string): unknown {
  if (/^(\{|\[|true$|false$|-?\d+(\.\d+)?$)/.test(value.trim())) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

function parseDataFlag(value: string): Record<string, unknown> {
  try {
    const data: unknown = JSON.parse(value);
    if (typeof data === 'object' && data !== null && !Array.isArray(data))
      return data as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new UsageError('--data must be a JSON object');
}

function enc(segment: string | undefined): string {
  return encodeURIComponent(segment ?? '');
}
