import type { WorkspaceCredentials } from '../auth/workspace-credentials.ts';
import { DEFAULT_MAX_CONCURRENT_RUNS } from '../domain/workspace.ts';
import type { Repositories } from '../storage/repositories/index.ts';

export type DevBootstrap =
  | { kind: 'created'; workspaceSlug: string; apiKey: string }
  /** The database already had workspaces: dev mode creates nothing. */
  | { kind: 'existing'; hasDefaultWorkspace: boolean };

export const DEV_WORKSPACE_SLUG = 'default';

/** On an empty database: workspace `default` and one Developer-API key for it. */
export async function bootstrapDevWorkspace(
  repos: Repositories,
  credentials: WorkspaceCredentials,
): Promise<DevBootstrap> {
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
  const { key } = await credentials.createApiKey(workspace, { name: 'dev bootstrap key' });
  return { kind: 'created', workspaceSlug: workspace.slug, apiKey: key };
}
