import type { Agent } from '../../domain/agent.ts';
import type { ApiKey, ApiKeyUsage } from '../../domain/api-key.ts';
import type { RunFeedback } from '../../domain/feedback.ts';
import type { OauthApp, OauthGrant, User } from '../../domain/identity.ts';
import type { Offering, WorkspaceProvider } from '../../domain/offering.ts';
import type { Workspace, WorkspaceFeatures, WorkspaceRateLimits } from '../../domain/workspace.ts';
import type { WorkspaceTool } from '../../domain/workspace-tool.ts';
import type {
  AgentStore,
  ApiKeyStore,
  OfferingSource,
  WorkspaceProviderSource,
  WorkspaceToolStore,
} from './workspace-config.ts';
import type { UserCredentialStore } from './identity.ts';

/**
 * What the admin API (and the service's other edges) read and write of a workspace's configuration:
 * workspaces, keys, agents, tools, users, apps, providers, feedback. Each is implemented by one
 * repository in `storage/`; `http/` sees storage only through these.
 */

export interface NewWorkspace {
  slug: string;
  name: string;
  features: WorkspaceFeatures;
  rateLimits: WorkspaceRateLimits;
  maxConcurrentRuns: number;
}

export type WorkspacePatch = Partial<
  Pick<Workspace, 'name' | 'features' | 'rateLimits' | 'maxConcurrentRuns'>
>;

export interface WorkspaceStore {
  create(input: NewWorkspace): Promise<Workspace>;
  findBySlug(slug: string): Promise<Workspace | undefined>;
  list(): Promise<Workspace[]>;
  update(id: string, patch: WorkspacePatch): Promise<Workspace | undefined>;
  delete(id: string): Promise<boolean>;
}

/** A new API key as stored: the secret only as its hash and a display prefix. */
export interface NewApiKey {
  workspaceId: string;
  name: string;
  usage: ApiKeyUsage;
  agentIds: string[];
  expiresAt: string | null;
  keyHash: string;
  keyPrefix: string;
}

export interface ApiKeyAdminStore extends ApiKeyStore {
  create(input: NewApiKey): Promise<ApiKey>;
  listByWorkspace(workspaceId: string): Promise<ApiKey[]>;
  /** False when the workspace has no active key with this id. */
  revoke(workspaceId: string, id: string): Promise<boolean>;
}

/** A new agent; `description` and `outputSchema` default to none. */
export type NewAgent = Omit<Agent, 'id' | 'createdAt' | 'updatedAt' | 'description' | 'outputSchema'> &
  Partial<Pick<Agent, 'description' | 'outputSchema'>>;

export interface AgentAdminStore extends AgentStore {
  create(input: NewAgent): Promise<Agent>;
  listByWorkspace(workspaceId: string): Promise<Agent[]>;
  delete(workspaceId: string, id: string): Promise<boolean>;
}

export type NewWorkspaceTool = Omit<WorkspaceTool, 'id' | 'createdAt'>;

export interface WorkspaceToolAdminStore extends WorkspaceToolStore {
  create(input: NewWorkspaceTool): Promise<WorkspaceTool>;
  listByWorkspace(workspaceId: string): Promise<WorkspaceTool[]>;
  delete(workspaceId: string, id: string): Promise<boolean>;
}

/** A new end user: the password only as its hash. */
export interface NewUser {
  workspaceId: string;
  email: string;
  passwordHash: string;
  name: string | null;
}

export interface UserStore extends UserCredentialStore {
  /** Throws `ConflictError` when the workspace has a user with this email. */
  create(input: NewUser): Promise<User>;
  listByWorkspace(workspaceId: string): Promise<User[]>;
  delete(workspaceId: string, id: string): Promise<boolean>;
}

/** A new OAuth app: the client secret only as its hash. */
export interface NewOAuthApp {
  workspaceId: string;
  name: string;
  redirectUris: string[];
  clientSecretHash: string;
}

export interface OAuthAppStore {
  create(input: NewOAuthApp): Promise<OauthApp>;
  listByWorkspace(workspaceId: string): Promise<OauthApp[]>;
  delete(workspaceId: string, id: string): Promise<boolean>;
}

/** The grants users gave apps, as the admin API lists and ends them. */
export interface OAuthGrantAdminStore {
  /** Newest first. */
  listGrants(workspaceId: string): Promise<OauthGrant[]>;
  /** Deletes the grant with its tokens; false when the workspace has none with this id. */
  deleteGrant(workspaceId: string, grantId: string): Promise<boolean>;
}

export type NewOffering = Omit<Offering, 'id' | 'createdAt' | 'origin'>;

export interface OfferingStore extends OfferingSource {
  create(input: NewOffering): Promise<Offering>;
  delete(id: string): Promise<boolean>;
}

export type NewWorkspaceProvider = Omit<WorkspaceProvider, 'id' | 'createdAt'>;

export interface WorkspaceProviderStore extends WorkspaceProviderSource {
  create(input: NewWorkspaceProvider): Promise<WorkspaceProvider>;
  delete(workspaceId: string, id: string): Promise<boolean>;
}

export type FeedbackInput = Omit<RunFeedback, 'id' | 'createdAt' | 'updatedAt'>;

export interface FeedbackStore {
  /** Inserts the run's verdict or replaces it (last write wins); `created` tells which happened. */
  upsert(input: FeedbackInput): Promise<{ feedback: RunFeedback; created: boolean }>;
  listByWorkspace(workspaceId: string, limit: number, offset: number): Promise<RunFeedback[]>;
}

/** Seals secrets (provider keys) for storage at rest. */
export interface SecretSealer {
  seal(plaintext: string): string;
}

/** Whether storage answers, for readiness. */
export interface StorageHealth {
  ping(): Promise<void>;
}
