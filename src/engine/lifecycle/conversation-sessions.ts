import type { Agent } from '../../domain/agent.ts';
import { NotFoundError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { A2aContextStore } from '../ports.ts';
import type { RunCredential } from './agent-access.ts';
import type { SessionService } from './session-service.ts';

export interface ConversationSessionsDeps {
  contexts: A2aContextStore;
  sessions: SessionService;
}

/**
 * The sessions that carry a hosted protocol's conversations: a peer's conversation key (an A2A
 * `contextId`, an AG-UI `threadId` under its own prefix) is bound to one session of the agent in
 * storage, so every replica continues the same conversation.
 */
export class ConversationSessions {
  readonly #deps: ConversationSessionsDeps;
  constructor(deps: ConversationSessionsDeps) {
    this.#deps = deps;
  }

  /** The session the key is bound to, if it is (the session itself may not exist yet). */
  find(credential: RunCredential, agent: Agent, key: string): Promise<string | undefined> {
    return this.#deps.contexts.find(credential.workspaceId, agent.id, key);
  }

  /**
   * The key's session, opened on first use with `metadata`. An unbound key is bound to a reserved
   * session id first, then whoever finds that session missing creates it under that id: concurrent
   * first messages (on any replica) bind one id, and only one of their creations can succeed.
   */
  async sessionOf(
    credential: RunCredential,
    agent: Agent,
    key: string,
    metadata: Record<string, string>,
  ): Promise<string> {
    const { contexts, sessions } = this.#deps;
    const { workspaceId } = credential;
    const sessionId =
      (await contexts.find(workspaceId, agent.id, key)) ??
      (await contexts.bind(workspaceId, agent.id, key, newId('session')));
    if (await this.#sessionExists(workspaceId, sessionId)) return sessionId;
    try {
      await sessions.create(credential, { agentId: agent.id, metadata }, { id: sessionId });
    } catch (error) {
      // Another message of the conversation created it first.
      if (!(await this.#sessionExists(workspaceId, sessionId))) throw error;
    }
    return sessionId;
  }

  async #sessionExists(workspaceId: string, sessionId: string): Promise<boolean> {
    try {
      await this.#deps.sessions.get(workspaceId, sessionId);
      return true;
    } catch (error) {
      if (error instanceof NotFoundError) return false;
      throw error;
    }
  }
}
