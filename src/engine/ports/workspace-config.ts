import type { Agent } from '../../domain/agent.ts';
import type { ApiKey } from '../../domain/api-key.ts';
import type { Offering, WorkspaceProvider } from '../../domain/offering.ts';
import type { Workspace } from '../../domain/workspace.ts';
import type { WorkspaceTool } from '../../domain/workspace-tool.ts';

/**
 * What runs and requests read of a workspace's configuration: agents, API keys, model offerings and
 * providers, workspace tools. The admin API's stores (`workspace-admin.ts`) extend these.
 */

export interface AgentStore {
  findById(workspaceId: string, id: string): Promise<Agent | undefined>;
  findBySlug(workspaceId: string, slug: string): Promise<Agent | undefined>;
}

/** The workspace API keys a request's credential is checked against (stored as hashes). */
export interface ApiKeyStore {
  /** The key with this hash and its workspace, revoked or not: the caller decides what a revoked key means. */
  findByHash(keyHash: string): Promise<{ apiKey: ApiKey; workspace: Workspace } | undefined>;
  touchLastUsed(id: string, at: string): Promise<void>;
}

/** Where the model catalog reads the platform's offerings. */
export interface OfferingSource {
  list(): Promise<Offering[]>;
}

/** Where the model catalog reads a workspace's own providers. */
export interface WorkspaceProviderSource {
  listByWorkspace(workspaceId: string): Promise<WorkspaceProvider[]>;
}

/** Opens provider keys sealed at rest. */
export interface SecretOpener {
  open(sealed: string): string;
}

/** The workspace Tool rows `svc` refs name. */
export interface WorkspaceToolStore {
  findById(workspaceId: string, id: string): Promise<WorkspaceTool | undefined>;
}
