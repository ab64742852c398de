import { Role, type AgentCard, type SendMessageRequest } from '@a2a-js/sdk';
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { isRecord, type LocalToolCall } from '../tools/local-tool-call.ts';
import type { ToolAnswer } from '../tools/tool-answer.ts';
import type { LocalToolContext, ToolBridge } from '../tools/tool-bridge.ts';
import { assertToolName, type A2aLocalToolRef } from '../tools/tool-refs.ts';
import { a2aReplyAnswer } from './a2a-reply-answer.ts';

const WELL_KNOWN_CARD_PATH = '/.well-known/agent-card.json';

export interface A2aLocalBridgeOptions {
  /** The model-facing tool name (`[a-zA-Z0-9_]{1,64}`). */
  name: string;
  /** Overrides the description the service builds from the card's name, description and skills. */
  description?: string;
  /** Sent on the card fetch and on every A2A request (credentials of a peer only you reach). */
  headers?: Record<string, string>;
  /** Threads every call into one remote conversation; a fresh context per call when omitted. */
  contextId?: string;
  fetch?: typeof fetch;
}

/**
 * Serves an `a2a_local` ref from an A2A peer only this client reaches: the ref carries the peer's
 * Agent Card as fetched, and each call's `args.message` is sent with `message/send` through the
 * official SDK (v0.3 peers too, by its legacy compatibility); the reply's text is the result.
 */
export class A2aLocalBridge implements ToolBridge {
  readonly kind = 'a2a_local';
  readonly name: string;
  /** The card as the peer serves it (unknown fields kept): the ref's `agentCard`. */
  readonly agentCard: Record<string, unknown>;
  readonly #client: Client;
  readonly #options: A2aLocalBridgeOptions;

  private constructor(agentCard: Record<string, unknown>, client: Client, options: A2aLocalBridgeOptions) {
    this.name = options.name;
    this.agentCard = agentCard;
    this.#client = client;
    this.#options = options;
  }

  /**
   * Fetches the Agent Card at `url` (e.g. `http://peer.local/.well-known/agent-card.json`; a
   * bare origin means its `/.well-known/agent-card.json`).
   */
  static async fromCardUrl(url: string | URL, options: A2aLocalBridgeOptions): Promise<A2aLocalBridge> {
    const cardUrl = new URL(url);
    if (cardUrl.pathname === '/') cardUrl.pathname = WELL_KNOWN_CARD_PATH;
    const fetchImpl = withHeaders(options.fetch ?? fetch, options.headers ?? {});
    const response = await fetchImpl(cardUrl, { headers: { accept: 'application/json' } });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`fetching the Agent Card at ${cardUrl} failed: HTTP ${response.status}`);
    }
    const card: unknown = await response.json();
    if (!isRecord(card)) throw new Error(`the Agent Card at ${cardUrl} is not a JSON object`);
    return A2aLocalBridge.fromCard(card, options);
  }

  /** A bridge for a card already in hand. */
  static async fromCard(
    agentCard: Record<string, unknown>,
    options: A2aLocalBridgeOptions,
  ): Promise<A2aLocalBridge> {
    assertToolName(options.name, 'a2a_local tool name');
    const fetchImpl = withHeaders(options.fetch ?? fetch, options.headers ?? {});
    const legacyCompat = { enabled: true };
    const factory = new ClientFactory({
      transports: [
        new JsonRpcTransportFactory({ fetchImpl, legacyCompat }),
        new RestTransportFactory({ fetchImpl, legacyCompat }),
      ],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat }),
    });
    // The factory's resolver normalizes the card (v0.3 JSON or v1.0) before it picks a transport.
    const client = await factory.createFromAgentCard(agentCard as unknown as AgentCard);
    return new A2aLocalBridge(agentCard, client, options);
  }

  toolRef(): A2aLocalToolRef {
    return {
      kind: 'a2a_local',
      name: this.name,
      ...(this.#options.description !== undefined && { description: this.#options.description }),
      agentCard: this.agentCard,
    };
  }

  /** A call under another tool name whose echoed card is this peer's (same `url` and `name`). */
  serves(call: LocalToolCall): boolean {
    const card = call.agentCard;
    return card !== undefined && card.url === this.agentCard.url && card.name === this.agentCard.name;
  }

  async call(call: LocalToolCall, context: LocalToolContext): Promise<ToolAnswer> {
    const message = call.args.message;
    if (typeof message !== 'string') return { error: 'expected the argument { message: string }' };
    const reply = await this.#client.sendMessage(userMessage(message, this.#options.contextId), {
      signal: context.signal,
    });
    return a2aReplyAnswer(this.peerName, reply);
  }

  get peerName(): string {
    return typeof this.agentCard.name === 'string' ? this.agentCard.name : this.name;
  }

  async close(): Promise<void> {
    // The SDK client holds no connection of its own between requests.
  }
}

function userMessage(text: string, contextId: string | undefined): SendMessageRequest {
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
    // The SDK fills in a blocking send: the peer answers once the task is done or needs input.
    configuration: undefined,
    metadata: undefined,
  };
}

/** `fetch` sending `headers` under each request's own (the SDK's content type and version win). */
function withHeaders(fetchImpl: typeof fetch, headers: Readonly<Record<string, string>>): typeof fetch {
  if (Object.keys(headers).length === 0) return fetchImpl;
  return (input, init) => {
    const merged = new Headers(headers);
    new Headers(init?.headers).forEach((value, name) => merged.set(name, value));
    return fetchImpl(input, { ...init, headers: merged });
  };
}
