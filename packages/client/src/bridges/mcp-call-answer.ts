import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { isAttachableMimeType } from '../tools/attachable-mime-type.ts';
import type { ToolAnswer, ToolResultFile } from '../tools/tool-answer.ts';
import { answerOfValue, capUtf8, ERROR_MAX_BYTES } from '../tools/tool-answer.ts';

type McpCallResult = Awaited<ReturnType<Client['callTool']>>;
type ContentPart = Extract<McpCallResult, { content: unknown }>['content'][number];

/** The service's caps on the files of one result. */
const MAX_FILES = 20;
const MAX_FILE_BYTES = 5 * 1024 * 1024;

const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'audio/wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/webm': 'webm',
  'application/pdf': 'pdf',
  'application/json': 'json',
  'text/plain': 'txt',
};

/**
 * The answer for an MCP `tools/call` result: the text parts (and embedded text resources) joined
 * by newlines; images, audio and embedded blobs attached as files when the service takes their
 * type (and within 20 files, 5 MB), each also described in the text, and described only when not;
 * resource links described; `structuredContent` as JSON when there is no text. `isError` makes it
 * an error answer (text only, 8 KB).
 */
export function mcpCallAnswer(result: McpCallResult, fileStem: string): ToolAnswer {
  if (!Array.isArray(result.content)) return answerOfValue(result.toolResult);
  const lines: string[] = [];
  const files: ToolResultFile[] = [];
  let fileBytes = 0;
  const attach = (mimeType: string, base64: string, filename: string | undefined, what: string) => {
    const size = Buffer.byteLength(base64, 'base64');
    const name = filename ?? `${fileStem}-${files.length + 1}.${EXTENSIONS[mimeType] ?? 'bin'}`;
    if (
      result.isError !== true &&
      isAttachableMimeType(mimeType) &&
      files.length < MAX_FILES &&
      fileBytes + size <= MAX_FILE_BYTES
    ) {
      files.push({ filename: name, mimeType, data: base64 });
      fileBytes += size;
      lines.push(`[${what} ${mimeType}, ${size} bytes, attached as ${name}]`);
    } else {
      lines.push(`[${what} ${mimeType}, ${size} bytes, not attached]`);
    }
  };
  for (const part of result.content as ContentPart[]) {
    switch (part.type) {
      case 'text':
        lines.push(part.text);
        break;
      case 'image':
      case 'audio':
        attach(part.mimeType, part.data, undefined, part.type);
        break;
      case 'resource':
        if ('text' in part.resource) lines.push(part.resource.text);
        else {
          const mimeType = part.resource.mimeType ?? 'application/octet-stream';
          attach(
            mimeType,
            part.resource.blob,
            lastSegment(part.resource.uri),
            `resource ${part.resource.uri}`,
          );
        }
        break;
      case 'resource_link':
        lines.push(`[resource link ${part.name}: ${part.uri}${part.mimeType ? ` (${part.mimeType})` : ''}]`);
        break;
    }
  }
  if (lines.length === 0 && result.structuredContent !== undefined) {
    lines.push(JSON.stringify(result.structuredContent));
  }
  const text = lines.join('\n');
  if (result.isError === true)
    return { error: capUtf8(text || 'the MCP tool reported an error', ERROR_MAX_BYTES) };
  const answer = answerOfValue(text);
  return files.length > 0 && 'result' in answer ? { ...answer, files } : answer;
}

function lastSegment(uri: string): string | undefined {
  let path = uri;
  try {
    path = new URL(uri).pathname;
  } catch {
    // Not a URL: its last `/` segment still names it.
  }
  const segment = (path.split('/').pop() ?? '').trim();
  return /^[^\\/]{1,255}$/.test(segment) && segment !== '.' && segment !== '..' ? segment : undefined;
}
