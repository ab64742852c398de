import type { ApiKey } from '../domain/api-key.ts';
import type { Workspace } from '../domain/workspace.ts';

/** Who is calling a workspace route, established by the credential. */
export interface ApiKeyPrincipal {
  kind: 'api_key';
  workspace: Workspace;
  apiKey: ApiKey;
}

export type Principal = ApiKeyPrincipal;

/** Agents the principal may run; empty means every non-system agent of its workspace. */
export function agentAllowlist(principal: Principal): readonly string[] {
  return principal.apiKey.agentIds;
}
