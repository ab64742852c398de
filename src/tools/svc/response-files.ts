import { isJsonObject } from '../../domain/json-object.ts';
import type { ServerToolFile } from '../../engine/ports.ts';

/** The spec's tool-result `files` limits. */
export const MAX_FILES = 20;
export const MAX_FILE_BYTES = 5 * 1024 * 1024;

export type ResponseFiles =
  { ok: true; files: ServerToolFile[]; notes: string[] } | { ok: false; message: string };

/** Standard or URL-safe alphabet, as Buffer decodes both. */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * The entries of a JSON response's `files` array: `{ filename, mimeType, data }`
 * with base64 bytes or `{ filename, mimeType, url, sizeBytes? }` with an HTTPS
 * URL. A malformed entry is skipped with a note the model reads; more files or
 * bytes than the spec allows fail the whole call, since dropping some silently
 * would hand the model a result that looks complete.
 */
export function responseFiles(entries: readonly unknown[]): ResponseFiles {
  const files: ServerToolFile[] = [];
  const notes: string[] = [];
  let inlineBytes = 0;
  entries.forEach((entry, index) => {
    const file = responseFile(entry);
    if (typeof file === 'string') {
      notes.push(`files[${index}] ignored: ${file}`);
      return;
    }
    files.push(file);
    if ('data' in file) inlineBytes += file.data.byteLength;
  });
  if (files.length > MAX_FILES) {
    return { ok: false, message: `returned ${files.length} files; at most ${MAX_FILES} are allowed` };
  }
  if (inlineBytes > MAX_FILE_BYTES) {
    return {
      ok: false,
      message: `returned ${inlineBytes} bytes of inline files; at most ${MAX_FILE_BYTES} bytes (5 MB) are allowed`,
    };
  }
  return { ok: true, files, notes };
}

/** The file an entry describes, or why it is malformed. */
function responseFile(entry: unknown): ServerToolFile | string {
  if (!isJsonObject(entry)) return 'not an object';
  const { filename, mimeType, data, url, sizeBytes } = entry;
  if (typeof filename !== 'string' || filename === '') return 'no filename';
  if (typeof mimeType !== 'string' || !mimeType.includes('/')) return 'no mimeType';
  if (data !== undefined && url !== undefined) return 'both data and url';
  if (typeof data === 'string') {
    const base64 = data.replace(/\s+/g, '');
    if (!BASE64.test(base64) || base64.length % 4 === 1) return 'data is not base64';
    return { filename, mimeType, data: new Uint8Array(Buffer.from(base64, 'base64')) };
  }
  if (typeof url === 'string') {
    if (!isHttpsUrl(url)) return 'url is not an https URL';
    if (sizeBytes === undefined) return { filename, mimeType, url };
    if (typeof sizeBytes !== 'number' || !Number.isSafeInteger(sizeBytes) || sizeBytes < 0) {
      return 'sizeBytes is not a byte count';
    }
    return { filename, mimeType, url, sizeBytes };
  }
  return 'neither base64 data nor an https url';
}

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}
