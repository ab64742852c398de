import { isJsonObject } from '../../domain/json-object.ts';
import type { A2aLocalToolRef } from '../../domain/tool-ref.ts';
import type { RunTool } from '../../engine/ports.ts';

const SKILLS_IN_DESCRIPTION = 12;

/** The one argument the model passes to an A2A peer, for `a2a` and `a2a_local` alike. */
export const A2A_MESSAGE_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: 'object',
  properties: { message: { type: 'string', description: 'The full task for the agent, as one message.' } },
  required: ['message'],
  additionalProperties: false,
});

/**
 * `a2a_local`: a peer agent only the client can reach. The service never
 * fetches the card or talks to the peer; it builds the description from the
 * card's name, description and first 12 skills, and echoes the whole card.
 */
export function a2aLocalTool(ref: A2aLocalToolRef): RunTool {
  return {
    kind: 'a2a_local',
    name: ref.name,
    description: ref.description ?? describeAgentCard(ref.agentCard),
    inputSchema: { ...A2A_MESSAGE_SCHEMA },
    readOnly: false,
    retain: false,
    callExtras: { agentCard: ref.agentCard },
  };
}

export function describeAgentCard(card: Record<string, unknown>): string {
  const name = typeof card.name === 'string' ? card.name : 'remote agent';
  const lines = [
    typeof card.description === 'string' && card.description !== '' ? `${name}: ${card.description}` : name,
  ];
  const skills = Array.isArray(card.skills)
    ? card.skills.filter(isJsonObject).slice(0, SKILLS_IN_DESCRIPTION)
    : [];
  if (skills.length > 0) {
    lines.push('', 'Skills:');
    for (const skill of skills) {
      const skillName =
        typeof skill.name === 'string' ? skill.name : typeof skill.id === 'string' ? skill.id : 'skill';
      lines.push(
        typeof skill.description === 'string' ? `- ${skillName}: ${skill.description}` : `- ${skillName}`,
      );
    }
  }
  lines.push('', 'Send the full task as a single message.');
  return lines.join('\n');
}
