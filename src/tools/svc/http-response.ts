import { isJsonObject } from '../../domain/json-object.ts';
import type { ServerToolOutcome } from '../../engine/ports.ts';
import { readCapped } from './capped-body.ts';
import { bodyKind, decodeText, mediaType, utf8Text } from './media-type.ts';
import { responseFilename } from './response-filename.ts';
import { MAX_FILE_BYTES, responseFiles } from './response-files.ts';

/** The spec's limit on a tool error's text. */
const ERROR_TEXT_BYTES = 8 * 1024;

/** What an HTTP tool's response means to the model: its status, then its body by media type. */
export async function responseOutcome(
  toolName: string,
  response: Response,
  maxResponseBytes: number,
): Promise<ServerToolOutcome> {
  const contentType = response.headers.get('content-type');
  if (!response.ok) {
    const { bytes, truncated } = await readCapped(response, ERROR_TEXT_BYTES);
    const body = decodeText(bytes, contentType, truncated).trim();
    const text = `HTTP ${response.status}${body === '' ? '' : `: ${body}`}${truncated ? ' […truncated]' : ''}`;
    return { ok: false, text };
  }
  const { bytes, truncated } = await readCapped(response, maxResponseBytes);
  if (truncated) {
    return {
      ok: false,
      text: `the HTTP tool ${toolName} returned a response larger than ${maxResponseBytes} bytes`,
    };
  }
  if (bytes.byteLength === 0) {
    return { ok: true, text: `the HTTP tool ${toolName} returned no content (HTTP ${response.status})` };
  }
  const mimeType = mediaType(contentType);
  const kind = bodyKind(mimeType);
  switch (kind) {
    case 'json':
      return jsonOutcome(toolName, decodeText(bytes, contentType));
    case 'text':
      return { ok: true, text: decodeText(bytes, contentType) };
    case 'binary':
      return fileOutcome(toolName, bytes, mimeType, response.headers.get('content-disposition'));
    case 'unlabelled': {
      const text = utf8Text(bytes);
      if (text === undefined) return fileOutcome(toolName, bytes, 'application/octet-stream', null);
      return jsonOutcome(toolName, text);
    }
    default:
      return kind satisfies never;
  }
}

/**
 * A JSON body with a top-level `files` array yields those files, and as text
 * its string `result` or else the JSON without `files`; any other body (JSON
 * or not) is passed on as received.
 */
function jsonOutcome(toolName: string, text: string): ServerToolOutcome {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: true, text };
  }
  if (!isJsonObject(value) || !Array.isArray(value.files)) return { ok: true, text };
  const { files: entries, ...rest } = value;
  const files = responseFiles(entries);
  if (!files.ok) return { ok: false, text: `the HTTP tool ${toolName} ${files.message}` };
  const result = typeof rest.result === 'string' ? rest.result : JSON.stringify(rest);
  return {
    ok: true,
    text: [result, ...files.notes.map((note) => `note: ${note}`)].join('\n\n'),
    ...(files.files.length > 0 && { files: files.files }),
  };
}

function fileOutcome(
  toolName: string,
  data: Uint8Array,
  mimeType: string,
  contentDisposition: string | null,
): ServerToolOutcome {
  if (data.byteLength > MAX_FILE_BYTES) {
    return {
      ok: false,
      text: `the HTTP tool ${toolName} returned a ${data.byteLength}-byte file; at most ${MAX_FILE_BYTES} bytes (5 MB) are allowed`,
    };
  }
  const filename = responseFilename(contentDisposition, toolName, mimeType);
  return {
    ok: true,
    text: `returned file ${filename} (${mimeType}, ${data.byteLength} bytes)`,
    files: [{ filename, mimeType, data }],
  };
}
