import type { FilePart, ModelMessage, TextPart } from 'ai';
import type { Attachment, InputMessage, RunSpec } from '../../domain/run-spec.ts';
import type { SessionItem } from '../../domain/session-history.ts';
import { historyMessages } from './session-turns.ts';

export interface Conversation {
  /** The system prompt followed by every `system` message, in order: both apply. */
  instructions: string;
  messages: ModelMessage[];
}

/**
 * The model's view of a run's input. Only the last user turn carries its
 * attachments, as native file parts (inline bytes or the URL itself); older
 * turns are text only.
 */
export function initialConversation(spec: RunSpec, history: readonly SessionItem[]): Conversation {
  const input: InputMessage[] = spec.messages ?? [{ role: 'user', content: spec.prompt ?? '' }];
  const system = input.filter((message) => message.role === 'system' && message.content.trim() !== '');
  const instructions = [spec.effective.systemPrompt, ...system.map((message) => message.content)]
    .filter((part) => part.trim() !== '')
    .join('\n\n');
  const turns = input.filter((message) => message.role !== 'system');
  const lastUser = turns.findLastIndex((message) => message.role === 'user');
  const current = turns.map((message, index): ModelMessage => {
    if (message.role === 'assistant') return { role: 'assistant', content: message.content };
    if (index !== lastUser || !message.attachments?.length) return { role: 'user', content: message.content };
    const parts: Array<TextPart | FilePart> = [{ type: 'text', text: message.content }];
    for (const attachment of message.attachments) parts.push(filePart(attachment));
    return { role: 'user', content: parts };
  });
  return { instructions, messages: [...historyMessages(history), ...current] };
}

function filePart(attachment: Attachment): FilePart {
  if (attachment.type === 'input_file') {
    return {
      type: 'file',
      data: attachment.data,
      mediaType: attachment.mimeType,
      filename: attachment.filename,
    };
  }
  return {
    type: 'file',
    data: new URL(attachment.url),
    mediaType: attachment.mimeType ?? 'application/octet-stream',
    ...(attachment.filename !== undefined && { filename: attachment.filename }),
  };
}
