import { A2aJsonRpcError } from '../errors.ts';
import type { RequestOptions } from '../http-transport.ts';
import type { A2aAgentCard, A2aJsonRpcResponse, A2aUsage } from '../types.ts';
import { segment, type WorkspaceContext } from './workspace-context.ts';

/** The agent's reply to `message/send` (an A2A v0.3 message). */
export interface HostedAgentReply {
  kind: 'message';
  messageId: string;
  role: 'agent';
  /** Continue the conversation (the same session) by sending it with the next message. */
  contextId: string;
  parts: { kind: 'text'; text: string }[];
  /** The reply's text parts, joined. */
  text: string;
  /** The run's usage triple; absent when the runner reports none. */
  usage: A2aUsage | undefined;
}

export interface HostedAgentMessage {
  text: string;
  /** The conversation to continue; a new one when absent. */
  contextId?: string;
}

/**
 * The workspace's agents as hosted A2A peers (`{base_url}/api/a2a/{workspace}/agents/{agentSlug}`):
 * their Agent Card and a blocking `message/send`. Streaming and tasks are for A2A clients such as
 * `@a2a-js/sdk`, pointed at the card's `url`.
 */
export class HostedAgentsResource {
  readonly #context: WorkspaceContext;

  constructor(context: WorkspaceContext) {
    this.#context = context;
  }

  /** The endpoint path of one agent. */
  endpointPath(agentSlug: string): string {
    return `/api/a2a/${segment(this.#context.workspace)}/agents/${segment(agentSlug)}`;
  }

  card(agentSlug: string, options: RequestOptions = {}): Promise<A2aAgentCard> {
    return this.#context.transport.json({ method: 'GET', path: this.endpointPath(agentSlug), ...options });
  }

  /** Runs the agent on one message and resolves with its reply; a JSON-RPC error throws `A2aJsonRpcError`. */
  async send(
    agentSlug: string,
    message: string | HostedAgentMessage,
    options: RequestOptions = {},
  ): Promise<HostedAgentReply> {
    const { text, contextId } =
      typeof message === 'string' ? { text: message, contextId: undefined } : message;
    const response = await this.#context.transport.json<A2aJsonRpcResponse>({
      method: 'POST',
      path: this.endpointPath(agentSlug),
      body: {
        jsonrpc: '2.0',
        id: crypto.randomUUID(),
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: crypto.randomUUID(),
            role: 'user',
            parts: [{ kind: 'text', text }],
            ...(contextId !== undefined && { contextId }),
          },
        },
      },
      startsRun: true,
      ...options,
    });
    if (response.error) throw new A2aJsonRpcError(response.error);
    return replyOf(response.result);
  }
}

function replyOf(result: A2aJsonRpcResponse['result']): HostedAgentReply {
  const message = result as Partial<Omit<HostedAgentReply, 'text' | 'usage'>> & {
    metadata?: { svc?: A2aUsage };
  };
  const parts = (message.parts ?? []).filter((part) => part.kind === 'text');
  return {
    kind: 'message',
    messageId: message.messageId ?? '',
    role: 'agent',
    contextId: message.contextId ?? '',
    parts,
    text: parts.map((part) => part.text).join(''),
    usage: message.metadata?.svc,
  };
}
