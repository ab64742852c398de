import { isWellFormedId } from '../domain/ids.ts';
import type { RunListKey } from '../domain/run.ts';

/**
 * The runs list's `cursor`: the last run of a page (its creation time and id, the list's order) as
 * base64url JSON. Opaque to clients; checked on the way in, so a cursor that was not made here (or
 * was edited) is a precise `400`, never a query on whatever it holds.
 */
export function encodeRunListCursor(key: RunListKey): string {
  return Buffer.from(JSON.stringify({ createdAt: key.createdAt, id: key.id })).toString('base64url');
}

const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The key a cursor holds, or undefined when it is not one `encodeRunListCursor` made. */
export function decodeRunListCursor(cursor: string): RunListKey | undefined {
  if (!BASE64URL.test(cursor) || cursor.length > 200) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) return undefined;
  const { createdAt, id, ...rest } = decoded as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return undefined;
  if (typeof createdAt !== 'string' || !ISO_MILLIS.test(createdAt) || Number.isNaN(Date.parse(createdAt)))
    return undefined;
  if (typeof id !== 'string' || !isWellFormedId('run', id)) return undefined;
  return { createdAt, id };
}
