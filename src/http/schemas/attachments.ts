import { z } from 'zod';
import type { Attachment } from '../../domain/run-spec.ts';

/** The attachment MIME types the interface names; any other `text/*` subtype is accepted as well. */
export const ALLOWED_ATTACHMENT_MIME = [
  'audio/mp4',
  'audio/mpeg',
  'audio/wav',
  'audio/webm',
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'text/plain',
  'text/markdown',
  'text/x-markdown',
  'text/csv',
  'application/csv',
  'text/comma-separated-values',
  'text/tab-separated-values',
  'application/json',
  'application/xml',
  'text/xml',
  'text/html',
] as const;

const ALLOWED_MIME_SET: ReadonlySet<string> = new Set(ALLOWED_ATTACHMENT_MIME);
/** `text/` plus an RFC 6838 subtype name (no parameters). */
const TEXT_SUBTYPE_PATTERN = /^text\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** A MIME type without its parameters (`; charset=utf-8`), in lower case (MIME types are case-insensitive). */
export function baseMimeType(mime: string): string {
  return (mime.split(';', 1)[0] ?? '').trim().toLowerCase();
}

/**
 * Whether `mime` is an allowed attachment type: one of ALLOWED_ATTACHMENT_MIME or any `text/*` subtype,
 * parameters aside.
 */
export function isAllowedAttachmentMime(mime: string): boolean {
  const base = baseMimeType(mime);
  return ALLOWED_MIME_SET.has(base) || TEXT_SUBTYPE_PATTERN.test(base);
}

const ALLOWED_MIME_DESCRIPTION = `${ALLOWED_ATTACHMENT_MIME.join(', ')} or any other text/* type`;

/** An allowed attachment MIME type, normalized to its lower-case base type (parameters dropped). */
export const attachmentMimeSchema = z
  .string({ error: 'must be a string' })
  .refine(isAllowedAttachmentMime, {
    error: (issue) =>
      `${JSON.stringify(issue.input)} is not an allowed attachment type (allowed: ${ALLOWED_MIME_DESCRIPTION})`,
  })
  .transform(baseMimeType);

const BASE64_PAD = 0x3d; // '='

function isBase64Char(code: number): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x61 && code <= 0x7a) || // a-z
    (code >= 0x30 && code <= 0x39) || // 0-9
    code === 0x2b || // +
    code === 0x2f // /
  );
}

/**
 * Strict standard base64 (RFC 4648 §4): only `A-Z a-z 0-9 + /`, no whitespace, length a multiple of 4,
 * and at most two `=` of padding, only at the end.
 */
export function isWellFormedBase64(data: string): boolean {
  const length = data.length;
  if (length % 4 !== 0) return false;
  let padding = 0;
  if (length > 0 && data.charCodeAt(length - 1) === BASE64_PAD) {
    padding = data.charCodeAt(length - 2) === BASE64_PAD ? 2 : 1;
  }
  for (let index = 0; index < length - padding; index += 1) {
    if (!isBase64Char(data.charCodeAt(index))) return false;
  }
  return true;
}

/** Number of bytes a base64 string decodes to (padded or not); meaningful for well-formed input. */
export function decodedBase64Size(data: string): number {
  let end = data.length;
  while (end > 0 && data.length - end < 2 && data.charCodeAt(end - 1) === BASE64_PAD) end -= 1;
  return Math.floor((end * 3) / 4);
}

/** Inline file bytes: strict base64 without a `data:` URL prefix. */
export const base64DataSchema = z
  .string({ error: 'must be a base64 string' })
  .min(1, 'must not be empty')
  .superRefine((data, ctx) => {
    if (/^data:/i.test(data)) {
      ctx.addIssue({ code: 'custom', message: 'must be raw base64 without a data: URL prefix' });
    } else if (!isWellFormedBase64(data)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'must be well-formed base64 (A-Z, a-z, 0-9, + and / only, no whitespace, padded with = to a multiple of 4 characters)',
      });
    }
  });

const inlineFileAttachmentSchema = z.object({
  type: z.literal('input_file'),
  mimeType: attachmentMimeSchema,
  filename: z.string({ error: 'must be a string' }).min(1, 'must not be empty'),
  data: base64DataSchema,
});

const urlFileAttachmentSchema = z.object({
  type: z.literal('input_file_url'),
  url: z.url({ protocol: /^https$/, error: 'must be an https:// URL' }),
  mimeType: attachmentMimeSchema.exactOptional(),
  filename: z.string({ error: 'must be a string' }).exactOptional(),
});

export const attachmentSchema = z
  .discriminatedUnion('type', [inlineFileAttachmentSchema, urlFileAttachmentSchema], {
    error: 'must be an object whose type is input_file or input_file_url',
  })
  .meta({ id: 'Attachment' }) satisfies z.ZodType<Attachment>;
