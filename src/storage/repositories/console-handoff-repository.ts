import type { Kysely } from 'kysely';
import type { ConsoleHandoff, ConsoleHandoffStore } from '../../engine/ports.ts';
import { nowIso } from '../json-column.ts';
import type { Database } from '../schema.ts';

/** The console's sign-in handoffs: created by the OAuth callback, taken once by the browser tab. */
export class ConsoleHandoffRepository implements ConsoleHandoffStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async create(handoff: ConsoleHandoff): Promise<void> {
    const now = nowIso();
    await this.#db.deleteFrom('console_handoffs').where('expires_at', '<', now).execute();
    await this.#db
      .insertInto('console_handoffs')
      .values({
        id_hash: handoff.idHash,
        workspace_id: handoff.workspaceId,
        browser_binding_hash: handoff.browserBindingHash,
        sealed_token: handoff.sealedToken,
        token_expires_at: handoff.tokenExpiresAt,
        created_at: now,
        expires_at: handoff.expiresAt,
      })
      .execute();
  }

  // One DELETE … RETURNING: of two concurrent redemptions, one gets the row and the other nothing.
  async take(idHash: string): Promise<ConsoleHandoff | undefined> {
    const row = await this.#db
      .deleteFrom('console_handoffs')
      .where('id_hash', '=', idHash)
      .returningAll()
      .executeTakeFirst();
    if (!row || row.expires_at <= nowIso()) return undefined;
    return {
      idHash: row.id_hash,
      workspaceId: row.workspace_id,
      browserBindingHash: row.browser_binding_hash,
      sealedToken: row.sealed_token,
      tokenExpiresAt: row.token_expires_at,
      expiresAt: row.expires_at,
    };
  }
}
