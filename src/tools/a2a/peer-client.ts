import { AgentCard, Role, type SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import type { GuardedFetch } from '../server-tool.ts';
import type { PeerVersion } from './peer-endpoint.ts';

/**
 * The SDK's client for one JSON-RPC endpoint, speaking A2A `version`: 1.0 (`SendMessage`) with the
 * SDK's own transport, 0.3 (`message/send`, `kind` discriminators) with the v0.3 one, which the
 * transport factory's legacy compatibility picks for an interface declared with protocol version 0.3.
 */
export function jsonRpcClient(endpoint: string, fetch: GuardedFetch, version: PeerVersion): Promise<Client> {
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl: fetch, legacyCompat: { enabled: true } })],
  });
  return factory.createFromAgentCard(
    AgentCard.fromJSON({
      supportedInterfaces: [{ url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: version }],
    }),
  );
}

/** A user message carrying the model's text; an empty `contextId` leaves the peer to open a fresh context. */
export function userMessageRequest(text: string, contextId: string | undefined): SendMessageRequest {
  return {
    tenant: '',
    message: {
      messageId: crypto.randomUUID(),
      contextId: contextId ?? '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [
        {
          content: { $case: 'text', value: text },
          metadata: undefined,
          filename: '',
          mediaType: 'text/plain',
        },
      ],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    // The client fills in a blocking send: the peer answers once the task is done or needs input.
    configuration: undefined,
    metadata: undefined,
  };
}
