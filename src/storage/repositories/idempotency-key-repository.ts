import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type {
  IdempotencyClaim,
  IdempotencyClaimOutcome,
  IdempotencyKeyStore,
  IdempotencyScope,
  IdempotencyTimings,
  KeptAnswer,
} from '../../engine/ports.ts';
import type { Database, IdempotencyKeysTable } from '../schema.ts';

type KeyRow = Selectable<IdempotencyKeysTable>;

/** A row that changes under each attempt (deleted, taken over) is read again; more is a bug. */
const MAX_ATTEMPTS = 5;

export class IdempotencyKeyRepository implements IdempotencyKeyStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async exists(scope: IdempotencyScope): Promise<boolean> {
    const row = await this.#byScope(scope)
      .select('expires_at')
      .where('expires_at', '>', new Date().toISOString())
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * The insert that wins claims the key. A losing request reads the row: another body is refused, a
   * kept answer is replayed, a fresh claim is in progress; a stale claim (its holder crashed) or an
   * expired row is taken over by an update conditioned on the token read, which one request wins.
   */
  async claim(
    scope: IdempotencyScope,
    bodyHash: string,
    reservedId: string,
    timings: IdempotencyTimings,
  ): Promise<IdempotencyClaimOutcome> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const now = Date.now();
      const token = randomUUID();
      const fresh = {
        body_hash: bodyHash,
        state: 'in_progress' as const,
        claim_token: token,
        resource_id: reservedId,
        response_status: null,
        response_body: null,
        claimed_at: new Date(now).toISOString(),
        expires_at: new Date(now + timings.keepMs).toISOString(),
      };
      const inserted = await this.#db
        .insertInto('idempotency_keys')
        .values({ workspace_id: scope.workspaceId, route: scope.route, key: scope.key, ...fresh })
        .onConflict((conflict) => conflict.columns(['workspace_id', 'route', 'key']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) {
        return { kind: 'claimed', claim: { ...scope, token, resourceId: reservedId, takenOver: false } };
      }
      const row = await this.#byScope(scope).selectAll().executeTakeFirst();
      if (!row) continue; // purged or released meanwhile: insert again
      if (row.expires_at <= fresh.claimed_at) {
        if (await this.#takeOver(row, fresh)) {
          return { kind: 'claimed', claim: { ...scope, token, resourceId: reservedId, takenOver: false } };
        }
        continue;
      }
      if (row.body_hash !== bodyHash) return { kind: 'body_mismatch' };
      if (row.state === 'completed') return { kind: 'replay', answer: keptAnswer(row) };
      if (Date.parse(row.claimed_at) > now - timings.staleClaimMs) return { kind: 'in_progress' };
      // The holder stopped answering: keep its reserved id, so what it may have created is found.
      if (await this.#takeOver(row, { ...fresh, resource_id: row.resource_id, expires_at: row.expires_at })) {
        return {
          kind: 'claimed',
          claim: { ...scope, token, resourceId: row.resource_id, takenOver: true },
        };
      }
    }
    throw new Error(`idempotency key ${scope.key} changed under ${MAX_ATTEMPTS} claim attempts`);
  }

  async complete(claim: IdempotencyClaim, answer: KeptAnswer, keepMs: number): Promise<void> {
    await this.#db
      .updateTable('idempotency_keys')
      .set({
        state: 'completed',
        response_status: answer.status,
        response_body: answer.body,
        expires_at: new Date(Date.now() + keepMs).toISOString(),
      })
      .where('workspace_id', '=', claim.workspaceId)
      .where('route', '=', claim.route)
      .where('key', '=', claim.key)
      .where('claim_token', '=', claim.token)
      .execute();
  }

  async release(claim: IdempotencyClaim): Promise<void> {
    await this.#db
      .deleteFrom('idempotency_keys')
      .where('workspace_id', '=', claim.workspaceId)
      .where('route', '=', claim.route)
      .where('key', '=', claim.key)
      .where('claim_token', '=', claim.token)
      .execute();
  }

  async purgeExpired(): Promise<number> {
    const result = await this.#db
      .deleteFrom('idempotency_keys')
      .where('expires_at', '<=', new Date().toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  #byScope(scope: IdempotencyScope) {
    return this.#db
      .selectFrom('idempotency_keys')
      .where('workspace_id', '=', scope.workspaceId)
      .where('route', '=', scope.route)
      .where('key', '=', scope.key);
  }

  /** Replaces the row read, if no one changed it since (its token is the same): one request wins. */
  async #takeOver(row: KeyRow, values: Omit<KeyRow, 'workspace_id' | 'route' | 'key'>): Promise<boolean> {
    const result = await this.#db
      .updateTable('idempotency_keys')
      .set(values)
      .where('workspace_id', '=', row.workspace_id)
      .where('route', '=', row.route)
      .where('key', '=', row.key)
      .where('claim_token', '=', row.claim_token)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}

function keptAnswer(row: KeyRow): KeptAnswer {
  return { status: row.response_status ?? 200, body: row.response_body ?? '' };
}
