import { AgentCard } from '@a2a-js/sdk';
import type { Agent } from '../../../domain/agent.ts';

/** The v0.3 card's `protocolVersion` (v0.3 shapes: `message/send`, `kind`). */
export const PROTOCOL_VERSION = '0.3.0';
/** The A2A versions the endpoint speaks, as `supportedInterfaces` names them (1.0 with `A2A-Version: 1.0`). */
export const INTERFACE_VERSIONS = ['1.0', '0.3'] as const;
export type InterfaceVersion = (typeof INTERFACE_VERSIONS)[number];
const TEXT_MODES = ['text/plain'];
const CREDENTIAL_DESCRIPTION =
  'A workspace API key (svc_…) or an OAuth access token (svc_at_…) with scope runs:write; X-API-Key: <credential> works too.';

export interface AgentInterface {
  url: string;
  protocolBinding: 'JSONRPC';
  protocolVersion: InterfaceVersion;
}

/** An A2A v0.3 Agent Card, as the hosted endpoint serves it (with the 1.0 card's `supportedInterfaces`). */
export interface HostedAgentCard {
  protocolVersion: string;
  name: string;
  description: string;
  url: string;
  preferredTransport: 'JSONRPC';
  supportedInterfaces: AgentInterface[];
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
 * The agent as its cards describe it: its stored `description`, else a sentence naming it. The
 * stored system prompt is never shown.
 */
function descriptionOf(agent: Agent): string {
  return (
    agent.description ??
    `The ${agent.name} agent, hosted by agent-runs: it answers text messages, and keeps the conversation of each contextId.`
  );
}

/** Both interfaces of the endpoint at `url`: 1.0 first (what a 1.0 client picks), then 0.3. */
function interfacesOf(url: string): AgentInterface[] {
  return INTERFACE_VERSIONS.map((protocolVersion) => ({ url, protocolBinding: 'JSONRPC', protocolVersion }));
}

/** The card a v0.3 peer reads (a GET without `A2A-Version: 1.0`). The agent's `updatedAt` is its version. */
export function hostedAgentCard(agent: Agent, url: string): HostedAgentCard {
  const description = descriptionOf(agent);
  return {
    protocolVersion: PROTOCOL_VERSION,
    name: agent.name,
    description,
    url,
    preferredTransport: 'JSONRPC',
    supportedInterfaces: interfacesOf(url),
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
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: CREDENTIAL_DESCRIPTION } },
    security: [{ bearer: [] }],
  };
}

/** The same card in the SDK's (1.0) model, which its request handler reads and a 1.0 peer is served. */
export function sdkAgentCard(card: HostedAgentCard): AgentCard {
  return AgentCard.fromJSON({
    name: card.name,
    description: card.description,
    version: card.version,
    supportedInterfaces: card.supportedInterfaces,
    capabilities: card.capabilities,
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills,
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: 'bearer', description: CREDENTIAL_DESCRIPTION } },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  });
}

/** The card a 1.0 peer reads (a GET with `A2A-Version: 1.0`), as A2A 1.0 JSON. */
export function hostedAgentCardV1(card: HostedAgentCard): Record<string, unknown> {
  return AgentCard.toJSON(sdkAgentCard(card)) as Record<string, unknown>;
}
