import type { Agent } from '../../domain/agent.ts';
import { InvalidRequestError } from '../../domain/errors.ts';
import type { Run } from '../../domain/run.ts';
import { isServerToolKind, type ClientToolKind } from '../../domain/tool-ref.ts';
import type { TraceOrigin } from '../../domain/trace-context.ts';
import {
  followRunEvents,
  type FollowedRunEvent,
  type RunEventFollowerDeps,
} from '../log/run-event-follower.ts';
import type { A2aContextStore, AgentStore } from '../ports.ts';
import { authorizeAgentSlug, type RunCredential } from './agent-access.ts';
import { ConversationSessions } from './conversation-sessions.ts';
import type { SessionService } from './session-service.ts';

/** A context id is also session and run metadata, whose values are at most this long. */
export const MAX_CONTEXT_ID_CHARS = 256;

/** The session metadata key naming the A2A context a session carries (so sessions are listable by it). */
export const CONTEXT_METADATA_KEY = 'a2a.contextId';

/** An agent with client-resolved tools: no client is there to answer its `local_tool_call`s. */
export class AgentNotServableError extends Error {
  override name = 'AgentNotServableError';
  readonly kinds: readonly ClientToolKind[];
  constructor(agent: Agent, kinds: readonly ClientToolKind[]) {
    super(
      `agent '${agent.slug}' uses client-resolved tools (${kinds.join(', ')}), which only a client of the run ` +
        'can answer: it cannot be served over A2A',
    );
    this.kinds = kinds;
  }
}

export interface HostedAgentsDeps extends RunEventFollowerDeps {
  agents: AgentStore;
  contexts: A2aContextStore;
  sessions: SessionService;
}

/** One message of a peer: the text, its conversation, and metadata for the run it starts. */
export interface HostedMessage {
  contextId: string;
  text: string;
  /** Run metadata for this message only (merged over the session's). */
  metadata: Record<string, string>;
}

/**
 * Workspace agents served to A2A peers. Each message runs the agent as a session message run (logged,
 * metered, cancellable like any run); the peer's `contextId` names the session, bound in storage so
 * every replica continues the same conversation.
 */
export class HostedAgents {
  readonly #deps: HostedAgentsDeps;
  readonly #conversations: ConversationSessions;
  constructor(deps: HostedAgentsDeps) {
    this.#deps = deps;
    this.#conversations = new ConversationSessions(deps);
  }

  /**
   * The agent the credential may serve: an unknown slug, a system agent and one outside the
   * allowlist are all 403 forbidden, as for `agentId` (whether the agent exists is not told).
   */
  authorize(credential: RunCredential, agentSlug: string): Promise<Agent> {
    return authorizeAgentSlug(this.#deps.agents, credential, agentSlug);
  }

  /**
   * Starts the run answering one message, in the session of its context (opened on first use);
   * `caller`: the trace context the message came with.
   */
  async send(
    credential: RunCredential,
    agent: Agent,
    message: HostedMessage,
    caller?: TraceOrigin,
  ): Promise<Run> {
    const kinds = clientToolKinds(agent);
    if (kinds.length > 0) throw new AgentNotServableError(agent, kinds);
    if (message.contextId === '' || message.contextId.length > MAX_CONTEXT_ID_CHARS) {
      throw new InvalidRequestError(`contextId: must be 1 to ${MAX_CONTEXT_ID_CHARS} characters`);
    }
    const sessionId = await this.#conversations.sessionOf(credential, agent, message.contextId, {
      [CONTEXT_METADATA_KEY]: message.contextId,
    });
    return this.#deps.sessions.message(
      credential,
      sessionId,
      { prompt: message.text, metadata: message.metadata },
      caller,
    );
  }

  /** The run's events from the first to the terminal one (see `followRunEvents`). */
  follow(runId: string, signal: AbortSignal): AsyncGenerator<FollowedRunEvent, void, undefined> {
    return followRunEvents(runId, 0, this.#deps, signal);
  }
}

/** The client-resolved kinds among the agent's own tools. */
export function clientToolKinds(agent: Agent): ClientToolKind[] {
  const kinds = new Set<ClientToolKind>();
  for (const tool of agent.tools) if (!isServerToolKind(tool.kind)) kinds.add(tool.kind);
  return [...kinds];
}
