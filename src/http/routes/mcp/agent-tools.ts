import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Agent } from '../../../domain/agent.ts';
import type { RunCredential } from '../../../engine/lifecycle/agent-access.ts';
import type { AgentAdminStore } from '../../../engine/ports.ts';

/** The arguments every agent tool takes (extensions §9). */
export const AGENT_TOOL_INPUT_SCHEMA = {
  type: 'object',
  properties: { message: { type: 'string' }, sessionId: { type: 'string' } },
  required: ['message'],
} as const satisfies Tool['inputSchema'];

/** The tool name of an agent: its slug with every character outside `[A-Za-z0-9_]` as `_`. */
export function toolNameOf(agent: Pick<Agent, 'slug'>): string {
  return agent.slug.replace(/[^A-Za-z0-9_]/g, '_');
}

/**
 * The agents a credential may run, as MCP clients see them: system agents are never listed (not
 * even to a credential that lists one), and a non-empty allowlist keeps only the agents it names.
 */
export async function runnableAgents(
  agents: Pick<AgentAdminStore, 'listByWorkspace'>,
  credential: RunCredential,
): Promise<Agent[]> {
  const all = await agents.listByWorkspace(credential.workspaceId);
  const allowlist = credential.agentAllowlist;
  return all.filter((agent) => !agent.isSystem && (allowlist.length === 0 || allowlist.includes(agent.id)));
}

/** The agent a tool name stands for among those the credential may run, or undefined. */
export async function agentOfTool(
  agents: Pick<AgentAdminStore, 'listByWorkspace'>,
  credential: RunCredential,
  toolName: string,
): Promise<Agent | undefined> {
  return (await runnableAgents(agents, credential)).find((agent) => toolNameOf(agent) === toolName);
}

/**
 * An agent as a tool: its description (else its name), the arguments of every agent tool, and its
 * `outputSchema` when the agent has one whose root is an object schema (what MCP allows there).
 */
export function agentTool(agent: Agent): Tool {
  const outputSchema = agent.outputSchema?.schema;
  return {
    name: toolNameOf(agent),
    title: agent.name,
    description: agent.description ?? agent.name,
    inputSchema: AGENT_TOOL_INPUT_SCHEMA,
    ...(declaresObjectOutput(agent) && { outputSchema: outputSchema as Tool['outputSchema'] }),
  };
}

/** Whether the agent's tool declares an `outputSchema` (then a call's reply must be a JSON object). */
export function declaresObjectOutput(agent: Agent): boolean {
  return agent.outputSchema?.schema.type === 'object';
}
