import { displayPrefix, generateApiKey, hashApiKey } from '../auth/api-key-secret.ts';
import { DEFAULT_MAX_CONCURRENT_RUNS } from '../domain/workspace.ts';
import type { Repositories } from '../storage/repositories/index.ts';

export type DevBootstrap =
  | { kind: 'created'; workspaceSlug: string; apiKey: string }
  /** The database already had workspaces: dev mode creates nothing. */
  | { kind: 'existing'; hasDefaultWorkspace: boolean };

export const DEV_WORKSPACE_SLUG = 'default';

/** On an empty database: workspace `default` and one Developer-API key for it. */
export async function bootstrapDevWorkspace(repos: Repositories): Promise<DevBootstrap> {
  if ((await repos.workspaces.count()) > 0) {
    return {
      kind: 'existing',
      hasDefaultWorkspace: (await repos.workspaces.findBySlug(DEV_WORKSPACE_SLUG)) !== undefined,
    };
  }
  const workspace = await repos.workspaces.create({
    slug: DEV_WORKSPACE_SLUG,
    name: 'Default workspace',
    features: { apiKeys: true, oauthApps: true },
    rateLimits: {},
    maxConcurrentRuns: DEFAULT_MAX_CONCURRENT_RUNS,
  });
  const apiKey = generateApiKey();
  await repos.apiKeys.create({
    workspaceId: workspace.id,
    name: 'dev bootstrap key',
    usage: 'developer_api',
    agentIds: [],
    expiresAt: null,
    keyHash: hashApiKey(apiKey),
    keyPrefix: displayPrefix(apiKey),
  });
  return { kind: 'created', workspaceSlug: workspace.slug, apiKey };
}
