/** Shared helpers of the hosted A2A endpoint tests: the official SDK client as a peer, and raw JSON-RPC calls. */
import type { Message, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type AgentCardResolver,
  type Client,
} from '@a2a-js/sdk/client';
import { isJsonRpcError } from '@a2a-js/sdk/errors';
import { userMessageRequest } from '../../src/tools/a2a/peer-client.ts';
import type { TestResponse, TestServer } from '../support/test-server.ts';
import { WAIT_CAP_MS, withCap } from '../support/waits.ts';

export const CARD_PATH = '/.well-known/agent-card.json';

/** The hosted endpoint path of an agent. */
export function endpointPath(workspaceSlug: string, agentSlug: string): string {
  return `/api/a2a/${workspaceSlug}/agents/${agentSlug}`;
}

export interface A2aPeer {
  client: Client;
  /** The raw JSON-RPC bodies the endpoint answered (each SSE frame's data for streams), in order. */
  wire: unknown[];
}

/**
 * The official A2A client, as a peer builds it: from the card URL, sending `headers` (the
 * credential) on every request and recording what came back on the wire. In `1.0` it is the SDK's
 * own client (its card request says `A2A-Version: 1.0`, and it picks the card's 1.0 interface). In
 * `0.3` it plays a v0.3 peer: the card is read without `A2A-Version` (the v0.3 card), and only the
 * card's 0.3 interface is offered to the client, which then speaks through its v0.3 compatibility.
 */
export async function a2aPeer(
  cardUrl: string,
  headers: Record<string, string>,
  version: '0.3' | '1.0' = '0.3',
): Promise<A2aPeer> {
  const wire: unknown[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const merged = new Headers(init?.headers);
    if (version === '0.3' && (init?.method ?? 'GET') === 'GET') merged.delete('a2a-version');
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    const response = await fetch(input, { ...init, headers: merged });
    void record(response.clone(), wire);
    return response;
  };
  const resolver = new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } });
  const cardResolver: AgentCardResolver =
    version === '1.0'
      ? resolver
      : {
          async resolve(baseUrl, path) {
            const card = await resolver.resolve(baseUrl, path);
            const interfaces = card.supportedInterfaces.filter((entry) => entry.protocolVersion === '0.3');
            return { ...card, supportedInterfaces: interfaces };
          },
        };
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
    cardResolver,
  });
  // An empty path: the card URL is the whole URL (not the origin's well-known path).
  return { client: await factory.createFromUrl(cardUrl, ''), wire };
}

async function record(response: Response, wire: unknown[]): Promise<void> {
  const text = await response.text().catch(() => '');
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    for (const line of text.split('\n')) if (line.startsWith('data: ')) wire.push(JSON.parse(line.slice(6)));
    return;
  }
  try {
    wire.push(JSON.parse(text));
  } catch {
    wire.push(text);
  }
}

/** A user text message in the SDK's model, in a context when given one. */
export function textMessage(text: string, contextId?: string): SendMessageRequest {
  return userMessageRequest(text, contextId);
}

/** The text of a message's text parts. */
export function textOf(message: Message | undefined): string {
  return (message?.parts ?? [])
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join('');
}

export function isMessage(result: Message | Task): result is Message {
  return 'messageId' in result;
}

/** Every event of a stream, to its end (a cap turns a hang into a failure). */
export function collectStream(
  stream: AsyncGenerator<StreamResponse, void, undefined>,
): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  const all = (async () => {
    for await (const event of stream) events.push(event);
    return events;
  })();
  return withCap(all, WAIT_CAP_MS, () => `the stream did not end; got ${events.length} events`);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary error data
type ErrorData = any;

/** What a call the endpoint answered with a JSON-RPC error threw: its code and data. */
export async function rpcError(
  call: Promise<unknown>,
): Promise<{ code: number; message: string; data: ErrorData }> {
  try {
    await call;
  } catch (error) {
    if (isJsonRpcError(error)) return { code: error.envelopeCode, message: error.message, data: error.data };
    const cause = (error as { cause?: unknown }).cause;
    if (isJsonRpcError(cause)) return { code: cause.envelopeCode, message: cause.message, data: cause.data };
    throw error;
  }
  throw new Error('the call succeeded, but a JSON-RPC error was expected');
}

/** A raw JSON-RPC POST to an endpoint (the body as given: a string is sent as is). */
export function rpc(
  server: TestServer,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<TestResponse> {
  return server.request('POST', path, { headers, body });
}

/** A `message/send` request body in v0.3 shapes. */
export function sendBody(text: string, options: { id?: number; contextId?: string; method?: string } = {}) {
  return {
    jsonrpc: '2.0',
    id: options.id ?? 1,
    method: options.method ?? 'message/send',
    params: {
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'text', text }],
        ...(options.contextId !== undefined && { contextId: options.contextId }),
      },
    },
  };
}

/** Creates a stored agent through the admin API; returns its id. */
export async function createAgent(
  server: TestServer,
  workspaceSlug: string,
  body: Record<string, unknown>,
): Promise<string> {
  const created = await server.admin('POST', `/workspaces/${workspaceSlug}/agents`, body);
  if (created.status !== 201) throw new Error(`agent: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}
