import { scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { hash, verify } from '@node-rs/argon2';

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keylen: number,
) => Promise<Buffer>;

/** Argon2id with the library's defaults (19 MiB, 2 passes: OWASP's minimum), as a PHC string. */
export async function hashPassword(password: string): Promise<string> {
  return hash(password);
}

/** Checks a password against its stored hash: argon2 (PHC `$argon2…`), or the older `scrypt$salt$hash` form. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (stored.startsWith('$argon2')) {
    try {
      return await verify(stored, password);
    } catch {
      return false;
    }
  }
  const [scheme, salt, expectedHash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !expectedHash) return false;
  const expected = Buffer.from(expectedHash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length);
  return timingSafeEqual(actual, expected);
}
