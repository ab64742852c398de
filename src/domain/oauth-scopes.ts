/** The scopes an OAuth access token can carry, each with what it lets an app do, in words for the consent page. */
export const OAUTH_SCOPES = {
  'models:read': 'See the models available in the workspace',
  'runs:read': 'Read runs and follow their streams',
  'runs:write': 'Start runs, answer their tool calls and cancel them',
  'sessions:read': 'Read sessions and their history',
  'sessions:write': 'Create sessions, send messages in them and end them',
  'feedback:read': 'Read the feedback given on runs',
  'feedback:write': 'Give feedback on runs',
  'svc.identity:read': 'See your email address and which workspace you belong to',
} as const;

export type OAuthScope = keyof typeof OAUTH_SCOPES;

export const OAUTH_SCOPE_NAMES = Object.keys(OAUTH_SCOPES) as OAuthScope[];

export function isOAuthScope(value: string): value is OAuthScope {
  return Object.hasOwn(OAUTH_SCOPES, value);
}

/** The scopes of a space-separated `scope` parameter, each once, in the catalog's order; unknown names returned apart. */
export function parseScopeParameter(scope: string): { scopes: OAuthScope[]; unknown: string[] } {
  const names = new Set(scope.split(' ').filter((name) => name !== ''));
  const unknown = [...names].filter((name) => !isOAuthScope(name));
  return { scopes: OAUTH_SCOPE_NAMES.filter((name) => names.has(name)), unknown };
}
