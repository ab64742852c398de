import { randomBytes, randomFillSync } from 'node:crypto';
import { encodeTime, monotonicFactory } from 'ulid';

/** Prefixes of the service's own identifiers: they tell a reader which resource an id names. */
export const ID_PREFIX = {
  workspace: 'ws',
  apiKey: 'key',
  offering: 'off',
  provider: 'prov',
  agent: 'agt',
  tool: 'tool',
  user: 'usr',
  oauthApp: 'app',
  oauthGrant: 'grant',
  run: 'run',
  session: 'ses',
  feedback: 'fb',
  file: 'file',
  webhook: 'wh',
  /** A webhook delivery: its `webhook-id`, the same on every attempt. */
  webhookDelivery: 'msg',
  schedule: 'sch',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/**
 * Ids sort in the order this process made them, also within one millisecond: runs created together
 * are admitted in that order.
 */
export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${nextUlid().toLowerCase()}`;
}

/** Every id of `kind` made before `epochMs` sorts below this one (an id's first characters are its time). */
export function idBoundAt(kind: IdKind, epochMs: number): string {
  return `${ID_PREFIX[kind]}_${encodeTime(epochMs, 10).toLowerCase()}`;
}

// ulid() alone asks the system for one random byte per character (16 calls an id); draw them from a pool instead.
const randomPool = new Uint8Array(4096);
let randomPoolOffset = randomPool.length;

/** A uniform fraction in [0, 1) from the pool of cryptographic random bytes, as ulid's PRNG. */
function pooledRandom(): number {
  if (randomPoolOffset === randomPool.length) {
    randomFillSync(randomPool);
    randomPoolOffset = 0;
  }
  return (randomPool[randomPoolOffset++] as number) / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

const ID_BODY = '[0-9a-hjkmnp-tv-z]{26}';
const ID_PATTERNS = Object.fromEntries(
  Object.entries(ID_PREFIX).map(([kind, prefix]) => [kind, new RegExp(`^${prefix}_${ID_BODY}$`)]),
) as Record<IdKind, RegExp>;

export function isWellFormedId(kind: IdKind, value: string): boolean {
  return ID_PATTERNS[kind].test(value);
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform random base62 string (rejection sampling keeps the distribution flat). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}
