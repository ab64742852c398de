import type { A2aToolRef } from '../../domain/tool-ref.ts';
import type { RunTool, ServerToolHandler } from '../../engine/ports.ts';
import { A2A_MESSAGE_SCHEMA } from '../a2a-local/a2a-local-tool.ts';
import { fetchFailureMessage, type GuardedFetch, type ServerTool } from '../server-tool.ts';
import { A2aPeer } from './a2a-peer.ts';
import { userMessageRequest, withHeaders } from './peer-client.ts';
import { replyOutcome } from './peer-reply.ts';

/** Keeps a failure the model reads short when a peer answers with a whole error page. */
const MAX_FAILURE_CHARS = 2_000;

export interface A2aToolDeps {
  fetch: GuardedFetch;
}

/**
 * `a2a`: a remote peer agent the service calls with A2A v0.3 `message/send`.
 * The peer's reply text is the result; its errors, an unreachable peer and a
 * refused fetch are tool errors the model reads; only a cancel of the call rejects.
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
  const peer = new A2aPeer(ref.agentCardUrl, withHeaders(deps.fetch, ref.headers ?? {}));
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
