import { sql, type Kysely, type Selectable } from 'kysely';
import { newId } from '../../domain/ids.ts';
import type {
  ClaimedDelivery,
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookEvent,
} from '../../domain/webhooks.ts';
import type { AttemptOutcome, WebhookDeliveryStore } from '../../engine/ports.ts';
import { isPostgres } from '../dialect.ts';
import type { Database, WebhookDeliveriesTable } from '../schema.ts';

/**
 * The outbox: one row per (event, endpoint), written by `insertWebhookDeliveries` in the transaction
 * of the event it announces. Attempts claim a row under a lease (`FOR UPDATE SKIP LOCKED` on
 * PostgreSQL; SQLite has one writer), so one attempt at most is in flight per delivery.
 */
export class WebhookDeliveryRepository implements WebhookDeliveryStore {
  readonly #db: Kysely<Database>;
  readonly #postgres: boolean;
  constructor(db: Kysely<Database>) {
    this.#db = db;
    this.#postgres = isPostgres(db);
  }

  async claimDue(now: string, leaseUntil: string): Promise<ClaimedDelivery | undefined> {
    let due = this.#db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .orderBy('next_attempt_at')
      .limit(1);
    if (this.#postgres) due = due.forUpdate().skipLocked();
    const claimed = await this.#db
      .updateTable('webhook_deliveries')
      .set({ lease_until: leaseUntil })
      .where('id', '=', due)
      .returning('id')
      .executeTakeFirst();
    if (!claimed) return undefined;
    const row = await this.#db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .innerJoin('workspaces as w', 'w.id', 'e.workspace_id')
      .selectAll('d')
      .select(['e.url', 'e.secret_sealed', 'e.enabled', 'e.workspace_id', 'w.slug'])
      .where('d.id', '=', claimed.id)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      ...toDelivery(row),
      url: row.url,
      secretSealed: row.secret_sealed,
      endpointEnabled: row.enabled === 1,
      workspaceId: row.workspace_id,
      workspaceSlug: row.slug,
      payload: row.payload,
    };
  }

  async nextDueAt(): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('webhook_deliveries')
      .select(
        sql<
          string | null
        >`min(case when lease_until is not null and lease_until > next_attempt_at then lease_until else next_attempt_at end)`.as(
          'due',
        ),
      )
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return row?.due ?? undefined;
  }

  async fixPayload(id: string, payload: string): Promise<string> {
    await this.#db
      .updateTable('webhook_deliveries')
      .set({ payload })
      .where('id', '=', id)
      .where('payload', 'is', null)
      .execute();
    const row = await this.#db
      .selectFrom('webhook_deliveries')
      .select('payload')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.payload ?? payload;
  }

  async recordAttempt(id: string, leaseUntil: string, outcome: AttemptOutcome): Promise<void> {
    await this.#db
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        status: outcome.status,
        attempts: eb('attempts', '+', 1),
        last_status_code: outcome.result.statusCode,
        last_error: outcome.result.error,
        next_attempt_at: outcome.nextAttemptAt,
        lease_until: null,
      }))
      .where('id', '=', id)
      .where('lease_until', '=', leaseUntil)
      .execute();
  }

  async list(endpointId: string, limit: number, cursor: string | undefined): Promise<WebhookDelivery[]> {
    let query = this.#db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .orderBy('id', 'desc')
      .limit(limit);
    if (cursor !== undefined) query = query.where('id', '<', cursor);
    return (await query.execute()).map(toDelivery);
  }

  async retryNow(endpointId: string, deliveryId: string, now: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', next_attempt_at: now })
      .where('endpoint_id', '=', endpointId)
      .where('id', '=', deliveryId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}

/**
 * Inserts, in the caller's transaction, one pending delivery of `event` for each enabled endpoint of
 * the run's workspace subscribed to it; `period` tells apart a run's waiting periods (0 otherwise).
 * A commit that already wrote them writes none again.
 */
export async function insertWebhookDeliveries(
  trx: Kysely<Database>,
  runId: string,
  event: WebhookEvent,
  period: number,
  now: string,
): Promise<number> {
  const endpoints = await trx
    .selectFrom('webhook_endpoints as e')
    .innerJoin('runs as r', 'r.workspace_id', 'e.workspace_id')
    .select('e.id')
    .where('r.id', '=', runId)
    .where('e.enabled', '=', 1)
    .where('e.events', 'like', `%"${event}"%`)
    .execute();
  if (endpoints.length === 0) return 0;
  await trx
    .insertInto('webhook_deliveries')
    .values(
      endpoints.map(({ id }) => ({
        id: newId('webhookDelivery'),
        endpoint_id: id,
        run_id: runId,
        event,
        period,
        status: 'pending',
        attempts: 0,
        last_status_code: null,
        last_error: null,
        next_attempt_at: now,
        lease_until: null,
        payload: null,
        created_at: now,
      })),
    )
    .onConflict((conflict) => conflict.columns(['endpoint_id', 'run_id', 'event', 'period']).doNothing())
    .execute();
  return endpoints.length;
}

function toDelivery(row: Selectable<WebhookDeliveriesTable>): WebhookDelivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    // Only the event store writes rows, each with an event of the union.
    event: row.event as WebhookEvent,
    runId: row.run_id,
    status: row.status as WebhookDeliveryStatus,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
  };
}
