import type { ApiKey, ApiKeyUsage } from '../domain/api-key.ts';
import { InvalidRequestError } from '../domain/errors.ts';
import type { OauthApp, User } from '../domain/identity.ts';
import type { Workspace } from '../domain/workspace.ts';
import type { AgentStore, ApiKeyAdminStore, OAuthAppStore, UserStore } from '../engine/ports.ts';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key-secret.ts';
import { generateClientSecret, hashSecret } from './oauth/token-secrets.ts';
import { hashPassword } from './password-hash.ts';

export interface ApiKeyRequest {
  name?: string | undefined;
  /** The agents the key may run (all when empty); each must be an agent of the workspace. */
  agentIds?: readonly string[] | undefined;
  usage?: ApiKeyUsage | undefined;
  /** An ISO 8601 date-time, any offset. */
  expiresAt?: string | undefined;
}

export interface UserRequest {
  email: string;
  password: string;
  name?: string | undefined;
}

export interface OAuthAppRequest {
  name: string;
  redirectUris: string[];
}

export interface CredentialStores {
  apiKeys: Pick<ApiKeyAdminStore, 'create'>;
  agents: AgentStore;
  users: Pick<UserStore, 'create'>;
  oauthApps: Pick<OAuthAppStore, 'create'>;
}

/**
 * Creates a workspace's credentials: API keys, end users' passwords and OAuth apps' client secrets.
 * Each secret is generated (or received) here and stored only as its hash; the plain secret is
 * returned once, to be shown once.
 */
export class WorkspaceCredentials {
  readonly #stores: CredentialStores;

  constructor(stores: CredentialStores) {
    this.#stores = stores;
  }

  /** A new API key; throws `InvalidRequestError` when an agent id is not one of the workspace's. */
  async createApiKey(workspace: Workspace, request: ApiKeyRequest): Promise<{ apiKey: ApiKey; key: string }> {
    const agentIds = [...new Set(request.agentIds ?? [])];
    for (const agentId of agentIds) {
      if (!(await this.#stores.agents.findById(workspace.id, agentId))) {
        throw new InvalidRequestError(`agentIds: no agent '${agentId}' in workspace '${workspace.slug}'`);
      }
    }
    const key = generateApiKey();
    const apiKey = await this.#stores.apiKeys.create({
      workspaceId: workspace.id,
      name: request.name ?? 'API key',
      usage: request.usage ?? 'developer_api',
      agentIds,
      expiresAt: request.expiresAt ? new Date(request.expiresAt).toISOString() : null,
      keyHash: hashApiKey(key),
      keyPrefix: displayPrefix(key),
    });
    return { apiKey, key };
  }

  /** A new end user, who signs in with this password; throws `ConflictError` on a taken email. */
  async createUser(workspace: Workspace, request: UserRequest): Promise<User> {
    return this.#stores.users.create({
      workspaceId: workspace.id,
      email: request.email,
      passwordHash: await hashPassword(request.password),
      name: request.name ?? null,
    });
  }

  /** A new OAuth app (a confidential client) and its client secret. */
  async createOAuthApp(
    workspace: Workspace,
    request: OAuthAppRequest,
  ): Promise<{ oauthApp: OauthApp; clientSecret: string }> {
    const clientSecret = generateClientSecret();
    const oauthApp = await this.#stores.oauthApps.create({
      workspaceId: workspace.id,
      name: request.name,
      redirectUris: request.redirectUris,
      clientSecretHash: hashSecret(clientSecret),
    });
    return { oauthApp, clientSecret };
  }
}
