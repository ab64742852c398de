import { AgentCard } from '@a2a-js/sdk';
import type { Agent } from '../../../domain/agent.ts';

/** The A2A protocol version the hosted endpoint speaks (v0.3 shapes: `message/send`, `kind`). */
export const PROTOCOL_VERSION = '0.3.0';
const TEXT_MODES = ['text/plain'];

/** An A2A v0.3 Agent Card, as the hosted endpoint serves it. */
export interface HostedAgentCard {
  protocolVersion: string;
  name: string;
  description: string;
  url: string;
  preferredTransport: 'JSONRPC';
  version: string;
  capabilities: { streaming: boolean; pushNotifications: boolean };
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: Array<{
    id: string;
    name: string;
    description: string;
    tags: string[];
    inputModes: string[];
    outputModes: string[];
  }>;
  securitySchemes: Record<string, Record<string, string>>;
  security: Array<Record<string, string[]>>;
}

/**
 * The card of a stored agent at its endpoint `url`. It describes the agent by name only: the
 * stored system prompt is never shown. The agent's `updatedAt` is its version.
 */
export function hostedAgentCard(agent: Agent, url: string): HostedAgentCard {
  const description = `The ${agent.name} agent, hosted by agent-runs: it answers text messages, and keeps the conversation of each contextId.`;
  return {
    protocolVersion: PROTOCOL_VERSION,
    name: agent.name,
    description,
    url,
    preferredTransport: 'JSONRPC',
    version: agent.updatedAt,
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: TEXT_MODES,
    defaultOutputModes: TEXT_MODES,
    skills: [
      {
        id: agent.slug,
        name: agent.name,
        description,
        tags: ['agent-runs'],
        inputModes: TEXT_MODES,
        outputModes: TEXT_MODES,
      },
    ],
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description:
          'A workspace API key (svc_…) or an OAuth access token (svc_at_…) with scope runs:write; X-API-Key: <credential> works too.',
      },
    },
    security: [{ bearer: [] }],
  };
}

/** The same card in the SDK's own (v1.0) model, which its request handler reads. */
export function sdkAgentCard(card: HostedAgentCard): AgentCard {
  return AgentCard.fromJSON({
    name: card.name,
    description: card.description,
    version: card.version,
    supportedInterfaces: [{ url: card.url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }],
    capabilities: card.capabilities,
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills,
  });
}
