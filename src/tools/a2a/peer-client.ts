import { AgentCard, Role, type SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import type { GuardedFetch } from '../server-tool.ts';

/**
 * The SDK's client for one JSON-RPC endpoint, speaking A2A v0.3 (`message/send`,
 * `kind` discriminators): the transport factory's legacy compatibility picks the
 * SDK's v0.3 transport for an interface declared with protocol version 0.3.
 */
export function legacyJsonRpcClient(endpoint: string, fetch: GuardedFetch): Promise<Client> {
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl: fetch, legacyCompat: { enabled: true } })],
  });
  return factory.createFromAgentCard(
    AgentCard.fromJSON({
      supportedInterfaces: [{ url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }],
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
