/** Where a creation request's `Idempotency-Key` applies: the workspace, the route (with its ids), the key. */
export interface IdempotencyScope {
  workspaceId: string;
  /** The route's identity: its operation, plus the session id for a session's messages. */
  route: string;
  key: string;
}

/** A key this request holds while it creates: only the holder of `token` completes or releases it. */
export interface IdempotencyClaim extends IdempotencyScope {
  token: string;
  /** The run or session id reserved for the creation (the id the first holder used, after a takeover). */
  resourceId: string;
  /** True when the claim was taken over from a holder that stopped answering (a crashed request). */
  takenOver: boolean;
}

/** A kept answer: its status and its JSON body, as first sent. */
export interface KeptAnswer {
  status: number;
  body: string;
}

export type IdempotencyClaimOutcome =
  | { kind: 'claimed'; claim: IdempotencyClaim }
  | { kind: 'replay'; answer: KeptAnswer }
  | { kind: 'body_mismatch' }
  | { kind: 'in_progress' };

export interface IdempotencyTimings {
  /** How long a kept key (answered or not) is honored. */
  keepMs: number;
  /** A claim held this long without an answer is taken over by the next request with the key. */
  staleClaimMs: number;
}

/**
 * The `Idempotency-Key`s of creation requests. Claims are decided by the database (a unique row), so
 * concurrent requests on any replica agree on which one creates.
 */
export interface IdempotencyKeyStore {
  /** Whether the key has a live row (a first request of the key will be metered as usual). */
  exists(scope: IdempotencyScope): Promise<boolean>;
  /** Claims the key for this body, or says why not: a kept answer, another body, a claim in progress. */
  claim(
    scope: IdempotencyScope,
    bodyHash: string,
    reservedId: string,
    timings: IdempotencyTimings,
  ): Promise<IdempotencyClaimOutcome>;
  /** Keeps the answer of a successful creation, for `keepMs` from now. */
  complete(claim: IdempotencyClaim, answer: KeptAnswer, keepMs: number): Promise<void>;
  /** Forgets the claim of a creation that failed: a retry with the key is processed anew. */
  release(claim: IdempotencyClaim): Promise<void>;
  /** Deletes the rows past their time; returns how many. */
  purgeExpired(): Promise<number>;
}
