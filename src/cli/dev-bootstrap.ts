import { displayPrefix, generateApiKey, hashApiKey } from '../auth/api-key-secret.ts';
import type { Repositories } from '../storage/repositories/index.ts';

export interface DevBootstrap {
  workspaceSlug: string;
  /** The new key, shown once; undefined when the database already had workspaces. */
  apiKey?: string;
}

export const DEV_WORKSPACE_SLUG = 'default';

/** On an empty database: workspace `default` and one Developer-API key for it. */
export async function bootstrapDevWorkspace(repos: Repositories): Promise<DevBootstrap> {
  if ((await repos.workspaces.count()) > 0) return { workspaceSlug: DEV_WORKSPACE_SLUG };
  const workspace = await repos.workspaces.create({
    slug: DEV_WORKSPACE_SLUG,
    name: 'Default workspace',
    features: { apiKeys: true, oauthApps: true },
    rateLimits: {},
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
  return { workspaceSlug: workspace.slug, apiKey };
}
