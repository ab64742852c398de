import { z } from 'zod';
import type { InputMessage } from '../../domain/run-spec.ts';
import { attachmentSchema, decodedBase64Size } from './attachments.ts';
import {
  CONTENT_MAX_CHARS,
  INLINE_ATTACHMENT_BYTES_MAX,
  LAST_USER_ATTACHMENTS_MAX,
  MESSAGES_MAX,
} from './limits.ts';
import { formatNumber, stringAtMost } from './zod-helpers.ts';

export const messageSchema = z
  .object(
    {
      role: z.enum(['user', 'assistant', 'system'], { error: 'must be user, assistant or system' }),
      content: stringAtMost(CONTENT_MAX_CHARS),
      attachments: z.array(attachmentSchema, { error: 'must be an array' }).exactOptional(),
    },
    { error: 'must be an object { role, content, attachments? }' },
  )
  .meta({ id: 'InputMessage' }) satisfies z.ZodType<InputMessage>;

/** Index of the last message whose role is not `system`, or -1. */
export function lastNonSystemIndex(messages: readonly Pick<InputMessage, 'role'>[]): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    if (messages[index]?.role !== 'system') return index;
  }
  return -1;
}

/**
 * A message list with the cross-message rules: at least one non-system message, the last of which is the
 * current `user` turn carrying at most 20 attachments; at most 5 MB of inline data over all messages.
 * Attachments on older turns are accepted (they are not re-sent to the model).
 */
export const messagesSchema = z
  .array(messageSchema, { error: 'must be an array of messages' })
  .max(MESSAGES_MAX, `must contain at most ${MESSAGES_MAX} messages`)
  .superRefine((messages, ctx) => {
    const last = lastNonSystemIndex(messages);
    const current = messages[last];
    if (current === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'must contain at least one non-system message; the last one must have role user',
      });
    } else if (current.role !== 'user') {
      ctx.addIssue({
        code: 'custom',
        message: `the last non-system message must have role user (messages.${last} has role ${current.role})`,
      });
    } else if ((current.attachments?.length ?? 0) > LAST_USER_ATTACHMENTS_MAX) {
      ctx.addIssue({
        code: 'custom',
        path: [last, 'attachments'],
        message: `at most ${LAST_USER_ATTACHMENTS_MAX} attachments on the last user message (got ${current.attachments?.length})`,
      });
    }

    let inlineBytes = 0;
    let crossing: (string | number)[] | undefined;
    messages.forEach((message, messageIndex) => {
      message.attachments?.forEach((attachment, attachmentIndex) => {
        if (attachment.type !== 'input_file') return;
        inlineBytes += decodedBase64Size(attachment.data);
        if (crossing === undefined && inlineBytes > INLINE_ATTACHMENT_BYTES_MAX) {
          crossing = [messageIndex, 'attachments', attachmentIndex];
        }
      });
    });
    if (crossing !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: crossing,
        message: `inline attachment data exceeds 5 MB in total (${formatNumber(inlineBytes)} bytes decoded, limit ${formatNumber(INLINE_ATTACHMENT_BYTES_MAX)}); send larger files as input_file_url`,
      });
    }
  });
