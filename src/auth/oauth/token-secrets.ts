import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../../domain/ids.ts';
import { OAUTH_ACCESS_TOKEN_PREFIX } from '../api-key-secret.ts';

/** Refresh tokens carry their own prefix: a leaked one is recognizable and never accepted as a credential. */
export const OAUTH_REFRESH_TOKEN_PREFIX = 'svc_rt_';

/** Access tokens live one hour (the spec's `expires_in` 3600). */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;

/** An authorization code is exchanged within this many seconds or not at all. */
export const AUTHORIZATION_CODE_LIFETIME_SECONDS = 300;

/** `svc_at_` and 40 base62 characters (about 238 bits). */
export function generateAccessToken(): string {
  return `${OAUTH_ACCESS_TOKEN_PREFIX}${randomBase62(40)}`;
}

export function generateRefreshToken(): string {
  return `${OAUTH_REFRESH_TOKEN_PREFIX}${randomBase62(48)}`;
}

export function generateAuthorizationCode(): string {
  return randomBase62(43);
}

export function generateClientSecret(): string {
  return randomBase62(48);
}

/** Tokens, codes and client secrets are high-entropy random strings: one SHA-256 is a safe lookup hash. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Whether `secret` hashes to `expectedHash`, compared in constant time. */
export function secretMatches(secret: string, expectedHash: string): boolean {
  const actual = Buffer.from(hashSecret(secret), 'hex');
  const expected = Buffer.from(expectedHash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
