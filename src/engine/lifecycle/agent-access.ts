import type { Agent } from '../../domain/agent.ts';
import { ForbiddenError, InvalidRequestError } from '../../domain/errors.ts';
import { isWellFormedId } from '../../domain/ids.ts';
import type { AgentStore } from '../ports.ts';

export interface RunCredential {
  workspaceId: string;
  apiKeyId: string | null;
  /** Agents the credential may run; empty means every non-system agent. */
  agentAllowlist: readonly string[];
}

/**
 * Which agent a run may use. A malformed `agentId` is 400; the credential
 * check fires before the lookup, so an agent outside a non-empty allowlist, an
 * unknown or another workspace's agent, and a system agent under an empty
 * allowlist are all 403 forbidden. A credential restricted to listed agents
 * cannot run ephemeral specs.
 */
export async function authorizeAgent(
  agents: AgentStore,
  credential: RunCredential,
  agentId: string | undefined,
): Promise<Agent | undefined> {
  const allowlist = credential.agentAllowlist;
  if (agentId === undefined) {
    if (allowlist.length > 0) {
      throw new ForbiddenError(
        'this credential may only run its allowed agents: pass one of them as agentId',
      );
    }
    return undefined;
  }
  if (!isWellFormedId('agent', agentId))
    throw new InvalidRequestError(`agentId: '${agentId}' is not an agent id`);
  if (allowlist.length > 0 && !allowlist.includes(agentId)) {
    throw new ForbiddenError(`this credential is not allowed to run agent '${agentId}'`);
  }
  const agent = await agents.findById(credential.workspaceId, agentId);
  if (!agent) throw new ForbiddenError(`agent '${agentId}' is not available to this credential`);
  if (agent.isSystem && allowlist.length === 0) {
    throw new ForbiddenError(
      `agent '${agentId}' is a system agent: only a credential that lists it may run it`,
    );
  }
  return agent;
}

/**
 * The agent of a hosted endpoint, named by its slug: an unknown slug, a system agent and one outside
 * the allowlist are all 403 forbidden, as for `agentId` (whether the agent exists is not told).
 */
export async function authorizeAgentSlug(
  agents: AgentStore,
  credential: RunCredential,
  agentSlug: string,
): Promise<Agent> {
  const refused = () => new ForbiddenError(`agent '${agentSlug}' is not available to this credential`);
  const found = await agents.findBySlug(credential.workspaceId, agentSlug);
  if (!found) throw refused();
  try {
    const agent = await authorizeAgent(agents, credential, found.id);
    if (!agent) throw refused();
    return agent;
  } catch (error) {
    if (error instanceof ForbiddenError) throw refused();
    throw error;
  }
}
