export const API_KEY_USAGES = ['developer_api', 'internal'] as const;
export type ApiKeyUsage = (typeof API_KEY_USAGES)[number];

export interface ApiKey {
  id: string;
  workspaceId: string;
  name: string;
  /** The first characters of the key, enough for a person to recognise it; never enough to use it. */
  keyPrefix: string;
  usage: ApiKeyUsage;
  /** Agents this key may run; empty means every non-system agent of the workspace. */
  agentIds: string[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}
