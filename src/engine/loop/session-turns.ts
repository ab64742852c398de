import type { ModelMessage } from 'ai';
import type { Attachment, RunSpec } from '../../domain/run-spec.ts';
import {
  RETAINED_RESULT_MAX_BYTES,
  type AttachmentMetadata,
  type RetainedToolPair,
  type SessionItem,
} from '../../domain/session-history.ts';

/**
 * A session's conversation as the model sees it before a new message run:
 * text turns (older attachments are not re-sent), and each retained tool
 * result as the tool-use/tool-result pair it was, in its original place.
 */
export function historyMessages(history: readonly SessionItem[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (const item of history) {
    if (item.role === 'tool_pair') {
      const { toolUseId, name, args, result, isError } = item.tool;
      messages.push(
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: toolUseId, toolName: name, input: args }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: toolUseId,
              toolName: name,
              output: isError ? { type: 'error-text', value: result } : { type: 'text', value: result },
            },
          ],
        },
      );
    } else if (item.role === 'assistant') {
      messages.push({ role: 'assistant', content: item.content });
    } else if (item.role === 'user') {
      messages.push({ role: 'user', content: item.content });
    }
  }
  return messages;
}

/** What a successful message run appends: its user turns, its retained tool results, and the reply. */
export function sessionTurnItems(
  spec: RunSpec,
  retained: readonly RetainedToolPair[],
  finalText: string,
): SessionItem[] {
  return [...sessionInputItems(spec, retained), { role: 'assistant', content: finalText }];
}

/** A message run's user turns and retained tool results: what it appends before its replies. */
export function sessionInputItems(spec: RunSpec, retained: readonly RetainedToolPair[]): SessionItem[] {
  const input = spec.messages ?? [{ role: 'user' as const, content: spec.prompt ?? '' }];
  const turns: SessionItem[] = input
    .filter((message) => message.role !== 'system')
    .map((message) => ({
      role: message.role,
      content: message.content,
      ...(message.attachments?.length && { attachments: message.attachments.map(attachmentMetadata) }),
    }));
  return [...turns, ...retained.map((tool) => ({ role: 'tool_pair' as const, tool }))];
}

/** A retained result is text only, cut to about 8 KB. */
export function retainedText(text: string): string {
  if (Buffer.byteLength(text, 'utf8') <= RETAINED_RESULT_MAX_BYTES) return text;
  let bytes = 0;
  let cut = 0;
  // Cut on a character boundary: never half a multi-byte character.
  for (const character of text) {
    const size = Buffer.byteLength(character, 'utf8');
    if (bytes + size > RETAINED_RESULT_MAX_BYTES) break;
    bytes += size;
    cut += character.length;
  }
  return `${text.slice(0, cut)}…[truncated]`;
}

export function attachmentMetadata(attachment: Attachment): AttachmentMetadata {
  if (attachment.type === 'input_file') {
    return {
      type: 'input_file',
      mimeType: attachment.mimeType,
      filename: attachment.filename,
      size: Buffer.byteLength(attachment.data, 'base64'),
    };
  }
  return {
    type: 'input_file_url',
    url: attachment.url,
    ...(attachment.mimeType !== undefined && { mimeType: attachment.mimeType }),
    ...(attachment.filename !== undefined && { filename: attachment.filename }),
  };
}
