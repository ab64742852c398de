import { agentAllowlist, type Principal } from '../auth/principal.ts';
import type { RunCredential } from '../engine/lifecycle/agent-access.ts';

/** What the engine needs to know of the caller to authorize a run. */
export function runCredential(principal: Principal): RunCredential {
  return {
    workspaceId: principal.workspace.id,
    apiKeyId: principal.kind === 'api_key' ? principal.apiKey.id : null,
    agentAllowlist: agentAllowlist(principal),
  };
}
