import type { Agent } from '../../domain/agent.ts';
import { ConflictError, InvalidRequestError } from '../../domain/errors.ts';
import type { Run } from '../../domain/run.ts';
import type { ClientToolResult } from '../../domain/tool-call.ts';
import type { LocalToolRef } from '../../domain/tool-ref.ts';
import type { TraceOrigin } from '../../domain/trace-context.ts';
import {
  followRunEvents,
  type FollowedRunEvent,
  type RunEventFollowerDeps,
} from '../log/run-event-follower.ts';
import type { A2aContextStore, AgentStore } from '../ports.ts';
import { authorizeAgentSlug, type RunCredential } from './agent-access.ts';
import { ConversationSessions } from './conversation-sessions.ts';
import { clientToolKinds } from './hosted-agents.ts';
import type { RunService } from './run-service.ts';
import type { SessionService } from './session-service.ts';
import { UnknownToolUseError } from './tool-result-intake.ts';

/** A thread id is also session metadata, whose values are at most this long. */
export const MAX_THREAD_ID_CHARS = 256;

/** The session metadata key naming the AG-UI thread a session carries (so sessions are listable by it). */
export const THREAD_METADATA_KEY = 'ag-ui.threadId';

/** Threads are bound beside A2A contexts, under this prefix, so the two never share a session. */
const THREAD_KEY_PREFIX = 'ag-ui/';

export interface AgentThreadsDeps extends RunEventFollowerDeps {
  agents: AgentStore;
  contexts: A2aContextStore;
  sessions: SessionService;
  runs: RunService;
}

/** A new user message of a thread, with the frontend's tools for the run it starts. */
export interface ThreadMessage {
  threadId: string;
  prompt: string;
  /** The frontend tools: client-resolved (`local`) tools of this run only. */
  tools: LocalToolRef[];
  /** Run metadata for this message only (merged over the session's). */
  metadata: Record<string, string>;
}

/** A frontend tool's answer, for the thread's run that waits for it. */
export interface ThreadToolAnswer {
  toolUseId: string;
  answer: ClientToolResult;
}

/**
 * Workspace agents served to AG-UI front ends. A thread is one session of the agent (opened on first
 * use, bound in storage so every replica continues it); a user message starts a message run in it,
 * whose frontend tools are client-resolved tools the front end answers in its next input; those
 * answers go to the waiting run as tool-result posts would.
 */
export class AgentThreads {
  readonly #deps: AgentThreadsDeps;
  readonly #conversations: ConversationSessions;
  constructor(deps: AgentThreadsDeps) {
    this.#deps = deps;
    this.#conversations = new ConversationSessions(deps);
  }

  /** The agent the credential may serve (403 forbidden otherwise, as for A2A). */
  async authorize(credential: RunCredential, agentSlug: string): Promise<Agent> {
    const agent = await authorizeAgentSlug(this.#deps.agents, credential, agentSlug);
    // The agent's own client-resolved tools have no handler in the front end.
    const kinds = clientToolKinds(agent);
    if (kinds.length > 0) {
      throw new ConflictError(
        `agent '${agent.slug}' has client-resolved tools of its own (${kinds.join(', ')}), which no AG-UI ` +
          "front end can answer: declare such tools as the input's tools (frontend tools) instead",
        { kinds },
      );
    }
    return agent;
  }

  /** Starts the run answering a user message, in the thread's session (`409 session_busy` while one runs). */
  async send(
    credential: RunCredential,
    agent: Agent,
    message: ThreadMessage,
    caller?: TraceOrigin,
  ): Promise<{ run: Run; sessionId: string }> {
    assertThreadId(message.threadId);
    const sessionId = await this.#conversations.sessionOf(
      credential,
      agent,
      THREAD_KEY_PREFIX + message.threadId,
      { [THREAD_METADATA_KEY]: message.threadId },
    );
    const run = await this.#deps.sessions.message(
      credential,
      sessionId,
      { prompt: message.prompt, tools: message.tools, metadata: message.metadata },
      caller,
    );
    return { run, sessionId };
  }

  /**
   * Delivers frontend tool answers to the thread's run that waits for them. Every answer must name a
   * call that run still awaits (`404 unknown_tool_use` otherwise, before any is stored).
   */
  async answer(
    credential: RunCredential,
    agent: Agent,
    threadId: string,
    answers: readonly ThreadToolAnswer[],
  ): Promise<{ run: Run; sessionId: string }> {
    assertThreadId(threadId);
    const { workspaceId } = credential;
    const [first] = answers;
    if (first === undefined) throw new InvalidRequestError('messages: no tool message to deliver');
    const sessionId = await this.#conversations.find(credential, agent, THREAD_KEY_PREFIX + threadId);
    const session =
      sessionId === undefined ? undefined : await this.#deps.sessions.get(workspaceId, sessionId);
    if (session?.activeRunId == null) throw new UnknownToolUseError(first.toolUseId);
    const run = await this.#deps.runs.get(workspaceId, session.activeRunId);
    const pending = new Set((await this.#deps.runs.pendingToolCalls(run)).map((call) => call.toolUseId));
    const unknown = answers.find((answer) => !pending.has(answer.toolUseId));
    if (unknown) throw new UnknownToolUseError(unknown.toolUseId);
    for (const { toolUseId, answer } of answers) {
      await this.#deps.runs.submitToolResult(workspaceId, run.id, toolUseId, answer);
    }
    return { run, sessionId: session.id };
  }

  /** The run's events from the first to the terminal one (see `followRunEvents`). */
  follow(runId: string, signal: AbortSignal): AsyncGenerator<FollowedRunEvent, void, undefined> {
    return followRunEvents(runId, 0, this.#deps, signal);
  }
}

function assertThreadId(threadId: string): void {
  if (threadId === '' || threadId.length > MAX_THREAD_ID_CHARS) {
    throw new InvalidRequestError(`threadId: must be 1 to ${MAX_THREAD_ID_CHARS} characters`);
  }
}
