import type { Kysely } from 'kysely';
import type { A2aContextStore } from '../../engine/ports.ts';
import { nowIso } from '../json-column.ts';
import type { Database } from '../schema.ts';

/** A2A conversations of hosted agents and the sessions that carry them. */
export class A2aContextRepository implements A2aContextStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async find(workspaceId: string, agentId: string, contextId: string): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('a2a_contexts')
      .select('session_id')
      .where('workspace_id', '=', workspaceId)
      .where('agent_id', '=', agentId)
      .where('context_id', '=', contextId)
      .executeTakeFirst();
    return row?.session_id;
  }

  /** The first binding wins on both engines (`ON CONFLICT DO NOTHING`); every caller reads the winner. */
  async bind(workspaceId: string, agentId: string, contextId: string, sessionId: string): Promise<string> {
    await this.#db
      .insertInto('a2a_contexts')
      .values({
        workspace_id: workspaceId,
        agent_id: agentId,
        context_id: contextId,
        session_id: sessionId,
        created_at: nowIso(),
      })
      .onConflict((conflict) => conflict.columns(['workspace_id', 'agent_id', 'context_id']).doNothing())
      .execute();
    const bound = await this.find(workspaceId, agentId, contextId);
    if (bound === undefined) throw new Error(`the A2A context '${contextId}' was not bound`);
    return bound;
  }
}
