import { createHash } from 'node:crypto';
import type {
  FastifyReply,
  FastifyRequest,
  onRequestAsyncHookHandler,
  onSendAsyncHookHandler,
  preHandlerAsyncHookHandler,
} from 'fastify';
import { stringify } from 'safe-stable-stringify';
import { DomainError, IdempotencyKeyReusedError } from '../../domain/errors.ts';
import {
  IDEMPOTENCY_KEEP_MS,
  IDEMPOTENCY_RETRY_AFTER_SECONDS,
  IDEMPOTENCY_STALE_CLAIM_MS,
  parseIdempotencyKey,
} from '../../domain/idempotency.ts';
import { newId } from '../../domain/ids.ts';
import { workspaceBucketOf } from '../openapi/route-bucket.ts';
import type { IdempotencyClaim, IdempotencyKeyStore, IdempotencyScope } from '../../engine/ports.ts';
import type { BucketMeter } from './rate-limit.ts';

/** The kind of resource an idempotent creation route makes: its id is reserved when the key is claimed. */
export type IdempotentResource = 'run' | 'session';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route honors `Idempotency-Key` (`describeRoute`'s `idempotent`): what it creates. */
    idempotent?: IdempotentResource;
  }
  interface FastifyRequest {
    /** Set on an idempotent route called with `Idempotency-Key`. */
    idempotency: IdempotentRequest | null;
  }
}

type IdempotentRequest =
  | {
      scope: IdempotencyScope;
      /** The key had a row when the request came in: it was not metered then (a replay is not). */
      meteringDeferred: boolean;
      /** Held from the claim until the answer is kept (2xx) or the claim released (anything else). */
      claim: IdempotencyClaim | null;
    }
  | { refusal: unknown; meteringDeferred: false };

export interface IdempotentCreationOptions {
  store: IdempotencyKeyStore;
  meter: BucketMeter;
}

/**
 * `Idempotency-Key` on creation routes (extensions §5), as three hooks:
 * - onRequest (after authentication, before the rate limit): checks the key and looks it up; a key
 *   already in use is not metered yet, since its request may be a replay;
 * - preHandler (the body parsed): claims the key for this body's canonical hash, then replays the kept
 *   answer (`Idempotent-Replayed: true`, counted as a read in the `transport` bucket), refuses another
 *   body (`422`) or a key still in progress (`409` with `Retry-After`), or lets the handler create,
 *   metering the request as its route says if it was deferred;
 * - onSend: keeps a `2xx` answer before it is sent; any other answer releases the key.
 */
export function idempotentCreation(options: IdempotentCreationOptions): {
  onRequest: onRequestAsyncHookHandler;
  preHandler: preHandlerAsyncHookHandler;
  onSend: onSendAsyncHookHandler<unknown>;
} {
  const { store, meter } = options;
  return {
    async onRequest(request) {
      const header = request.headers['idempotency-key'];
      const principal = request.principal;
      if (header === undefined || !principal || request.routeOptions.config.idempotent === undefined) return;
      let key;
      try {
        key = parseIdempotencyKey(header);
      } catch (error) {
        // Refused once metered, as any refused creation is (the bucket counts attempts).
        request.idempotency = { refusal: error, meteringDeferred: false };
        return;
      }
      const scope = { workspaceId: principal.workspace.id, route: routeOf(request), key };
      request.idempotency = { scope, meteringDeferred: await store.exists(scope), claim: null };
    },

    async preHandler(request, reply) {
      const idempotent = request.idempotency;
      const resource = request.routeOptions.config.idempotent;
      if (!idempotent || resource === undefined) return;
      if ('refusal' in idempotent) throw idempotent.refusal;
      const outcome = await store.claim(idempotent.scope, bodyHash(request.body), newId(resource), {
        keepMs: IDEMPOTENCY_KEEP_MS,
        staleClaimMs: IDEMPOTENCY_STALE_CLAIM_MS,
      });
      switch (outcome.kind) {
        case 'replay':
          if (!(await meter(request, reply, 'transport'))) return reply;
          return reply
            .status(outcome.answer.status)
            .header('idempotent-replayed', 'true')
            .type('application/json; charset=utf-8')
            .send(outcome.answer.body);
        case 'body_mismatch':
          throw new IdempotencyKeyReusedError();
        case 'in_progress':
          reply.header('retry-after', IDEMPOTENCY_RETRY_AFTER_SECONDS);
          throw new DomainError(
            'idempotency_key_in_use',
            'a request with this Idempotency-Key is still being processed; retry shortly',
          );
        case 'claimed':
          idempotent.claim = outcome.claim;
          if (idempotent.meteringDeferred && !(await meterAsDeclared(meter, request, reply))) return reply;
          return;
      }
    },

    async onSend(request, reply, payload) {
      const idempotent = request.idempotency;
      if (!idempotent || !('claim' in idempotent) || !idempotent.claim) return payload;
      const { claim } = idempotent;
      idempotent.claim = null;
      const status = reply.statusCode;
      try {
        if (status >= 200 && status < 300 && typeof payload === 'string') {
          await store.complete(claim, { status, body: payload }, IDEMPOTENCY_KEEP_MS);
        } else {
          await store.release(claim);
        }
      } catch (error) {
        // The key stays claimed: the next request with it takes it over once the claim is stale, and
        // finds what this one created by the reserved id.
        request.log.warn({ err: error }, 'the idempotency key could not be settled');
      }
      return payload;
    },
  };
}

/** Whether a creation with this key is metered at the door: not when the key may replay. */
export function meteringDeferred(request: FastifyRequest): boolean {
  return request.idempotency?.meteringDeferred === true;
}

/** The claim of an idempotent creation in progress, if the request holds one. */
export function idempotencyClaimOf(request: FastifyRequest): IdempotencyClaim | undefined {
  const idempotent = request.idempotency;
  return (idempotent && 'claim' in idempotent && idempotent.claim) || undefined;
}

/** The route's identity: its operation, plus the session for a session's messages. */
function routeOf(request: FastifyRequest): string {
  const operation = request.routeOptions.config.openapi?.operationId ?? request.routeOptions.url ?? '';
  const { sessionId } = request.params as { sessionId?: string };
  return sessionId === undefined ? operation : `${operation}:${sessionId}`;
}

/** Equal JSON bodies (key order aside) hash alike; a missing body reads as `{}`, as the handlers read it. */
function bodyHash(body: unknown): string {
  return createHash('sha256')
    .update(stringify(body ?? {}) ?? '')
    .digest('base64url');
}

async function meterAsDeclared(meter: BucketMeter, request: FastifyRequest, reply: FastifyReply) {
  const declared = request.routeOptions.config.bucket;
  const bucket = declared === undefined ? undefined : workspaceBucketOf(declared, () => undefined);
  return bucket === undefined || (await meter(request, reply, bucket));
}
