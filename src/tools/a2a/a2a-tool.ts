import type { A2aToolRef } from '../../domain/tool-ref.ts';
import type { RunTool, ServerToolHandler } from '../../engine/ports.ts';
import { A2A_MESSAGE_SCHEMA } from '../a2a-local/a2a-local-tool.ts';
import { fetchFailureMessage, type GuardedFetch, type ServerTool } from '../server-tool.ts';
import { A2aPeer } from './a2a-peer.ts';
import { originScopedHeaders } from './origin-scoped-headers.ts';
import { userMessageRequest } from './peer-client.ts';
import { replyOutcome } from './peer-reply.ts';

/** Keeps a failure the model reads short when a peer answers with a whole error page. */
const MAX_FAILURE_CHARS = 2_000;

export interface A2aToolDeps {
  fetch: GuardedFetch;
  logger?: { warn(fields: object, message: string): void };
}

/**
 * `a2a`: a remote peer agent the service calls with A2A 1.0 `SendMessage` when its
 * card offers a 1.0 JSON-RPC interface, else with v0.3 `message/send`.
 * The peer's reply text is the result; its errors, an unreachable peer and a
 * refused fetch are tool errors the model reads; only a cancel of the call rejects.
 * The ref's `headers` go only to the origin of `agentCardUrl`.
 */
export function a2aTool(ref: A2aToolRef, deps: A2aToolDeps): ServerTool {
  const tool: RunTool = {
    kind: 'a2a',
    name: ref.name,
    description:
      ref.description ??
      `Delegate a task to the ${ref.name} agent over A2A, passing the full task as a single message.`,
    inputSchema: { ...A2A_MESSAGE_SCHEMA },
    readOnly: false,
    retain: false,
    callExtras: {},
  };
  const headers = ref.headers ?? {};
  const cardOrigin = new URL(ref.agentCardUrl).origin;
  // The ref's headers are for the origin the caller named: a card pointing elsewhere is called without them.
  const peer = new A2aPeer(
    ref.agentCardUrl,
    originScopedHeaders(deps.fetch, cardOrigin, headers),
    (endpoint) => {
      if (Object.keys(headers).length === 0) return;
      deps.logger?.warn(
        { tool: ref.name, cardOrigin, endpointOrigin: endpoint.origin },
        'the A2A agent card names an endpoint on another origin: it is called without the tool’s headers',
      );
    },
  );
  const handler: ServerToolHandler = async (args, context) => {
    if (typeof args.message !== 'string') {
      return { ok: false, text: `A2A peer ${ref.name} failed: the argument 'message' must be a string` };
    }
    try {
      const result = await peer.send(userMessageRequest(args.message, ref.contextId), context.signal);
      return replyOutcome(ref.name, result);
    } catch (error) {
      context.signal.throwIfAborted();
      return { ok: false, text: `A2A peer ${ref.name} failed: ${peerFailureMessage(error)}` };
    }
  };
  return { tool, handler };
}

/** The failure's most specific message, cut to what a tool error needs. */
function peerFailureMessage(error: unknown): string {
  const message = fetchFailureMessage(error);
  return message.length > MAX_FAILURE_CHARS ? `${message.slice(0, MAX_FAILURE_CHARS)}…` : message;
}
