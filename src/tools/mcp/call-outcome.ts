import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ServerToolFile, ServerToolOutcome } from '../../engine/ports.ts';
import { MAX_FILE_BYTES, MAX_FILES } from '../svc/response-files.ts';
import { responseFilename } from '../svc/response-filename.ts';

/** A `tools/call` result as the client returns it: the default schema always gives the `content` form. */
type McpCallResult = Awaited<ReturnType<Client['callTool']>>;
type ContentResult = Extract<McpCallResult, { content: unknown }>;

const UNKNOWN_MIME_TYPE = 'application/octet-stream';

/**
 * What the model gets from an MCP `tools/call` result: the text parts (and embedded text resources)
 * joined by blank lines, images, audio and embedded blobs as files, resource links named in the text
 * (and passed on as files when their URI is https), `structuredContent` as JSON when there is no
 * text; `isError` makes it a tool error. Files `<stem>-<n>.<ext>` are numbered in result order.
 */
export function callOutcome(result: McpCallResult, fileStem: string): ServerToolOutcome {
  if (!isContentResult(result)) return { ok: true, text: JSON.stringify(result.toolResult) ?? '' };
  const texts: string[] = [];
  const files: ServerToolFile[] = [];
  const nextFilename = (mimeType: string) =>
    responseFilename(null, `${fileStem}-${files.length + 1}`, mimeType);
  for (const part of result.content) {
    switch (part.type) {
      case 'text':
        texts.push(part.text);
        break;
      case 'image':
      case 'audio':
        files.push({
          filename: nextFilename(part.mimeType),
          mimeType: part.mimeType,
          data: bytes(part.data),
        });
        break;
      case 'resource': {
        const { resource } = part;
        if ('text' in resource) {
          texts.push(resource.text);
          break;
        }
        const mimeType = resource.mimeType ?? UNKNOWN_MIME_TYPE;
        const filename = uriFilename(resource.uri) ?? nextFilename(mimeType);
        files.push({ filename, mimeType, data: bytes(resource.blob) });
        break;
      }
      case 'resource_link': {
        texts.push(`resource: ${part.uri}`);
        if (!isHttpsUrl(part.uri)) break;
        const mimeType = part.mimeType ?? UNKNOWN_MIME_TYPE;
        files.push({ url: part.uri, filename: uriFilename(part.uri) ?? nextFilename(mimeType), mimeType });
        break;
      }
    }
  }
  if (texts.length === 0 && result.structuredContent !== undefined) {
    texts.push(JSON.stringify(result.structuredContent));
  }
  const { kept, notes } = withinLimits(files);
  return {
    ok: result.isError !== true,
    text: [...texts, ...notes].join('\n\n'),
    ...(kept.length > 0 && { files: kept }),
  };
}

/** The files the service may hold for one result; each one left out is named in a note the model reads. */
function withinLimits(files: readonly ServerToolFile[]): { kept: ServerToolFile[]; notes: string[] } {
  const kept: ServerToolFile[] = [];
  const notes: string[] = [];
  let inlineBytes = 0;
  for (const file of files) {
    const size = 'data' in file ? file.data.byteLength : 0;
    if (kept.length >= MAX_FILES || inlineBytes + size > MAX_FILE_BYTES) {
      notes.push(
        `file ${file.filename} (${file.mimeType}) left out: a result may carry at most ${MAX_FILES} files and ${MAX_FILE_BYTES} bytes of file data`,
      );
      continue;
    }
    kept.push(file);
    inlineBytes += size;
  }
  return { kept, notes };
}

function isContentResult(result: McpCallResult): result is ContentResult {
  return Array.isArray(result.content);
}

function bytes(base64: string): Uint8Array {
  return new Uint8Array(Buffer.from(base64, 'base64'));
}

/** The last path segment of a URI, when it has a usable one. */
function uriFilename(uri: string): string | undefined {
  let path = uri;
  try {
    path = new URL(uri).pathname;
  } catch {
    // Not a URL: its last `/` segment still names it.
  }
  let segment = path.split('/').pop() ?? '';
  try {
    segment = decodeURIComponent(segment);
  } catch {
    // A malformed percent-encoding: keep it as it is.
  }
  segment = segment.trim();
  return segment === '' || segment === '.' || segment === '..' || /[/\\]/.test(segment) ? undefined : segment;
}

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}
