/** What each path parameter of the API names. */
const DESCRIPTIONS: Readonly<Record<string, string>> = {
  workspaceSlug: "The workspace's slug; it must be the credential's workspace.",
  runId: 'A run id (`run_…`), as run creation answered it.',
  sessionId: 'A session id (`ses_…`).',
  agentSlug: "A workspace agent's slug.",
  slug: "The workspace's slug.",
  id: "The resource's id.",
  version: "The console's version: a hash of all its files.",
  file: 'A file of the console, by name.',
};

const PARAMETER = /:([A-Za-z0-9_]+)/g;

/** Fastify's `/a/:b/c` as OpenAPI's `/a/{b}/c`. */
export function openApiPath(url: string): string {
  return url.replace(PARAMETER, '{$1}');
}

/** The path parameters of a Fastify URL, each a required string. */
export function pathParameters(url: string) {
  return [...url.matchAll(PARAMETER)].map(([, name = '']) => ({
    in: 'path' as const,
    name,
    required: true,
    description: DESCRIPTIONS[name] ?? 'A path parameter.',
    schema: { type: 'string' as const },
  }));
}
