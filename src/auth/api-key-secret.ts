import { createHash } from 'node:crypto';
import { randomBase62 } from '../domain/ids.ts';

export const API_KEY_PREFIX = 'svc_';
export const OAUTH_ACCESS_TOKEN_PREFIX = 'svc_at_';

/**
 * A new workspace API key: `svc_` and 40 base62 characters (about 238 bits).
 * Base62 has no underscore, so a key can never be read as an `svc_at_` token.
 */
export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomBase62(40)}`;
}

/** Keys are high-entropy random strings, so one SHA-256 is a safe, constant-cost lookup hash. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function displayPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 6);
}
