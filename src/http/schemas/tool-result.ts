import { z } from 'zod';
import {
  attachmentMimeSchema,
  base64DataSchema,
  decodedBase64Size,
  INLINE_ATTACHMENT_BYTES_MAX,
} from './agent-spec.ts';
import { documentedAs } from './documented-input.ts';

const RESULT_MAX_BYTES = 2 * 1024 * 1024;
const ERROR_MAX_BYTES = 8 * 1024;
const FILES_MAX = 20;

const fileSchema = z.object({
  filename: z.string().min(1, 'must not be empty').max(255),
  mimeType: attachmentMimeSchema,
  data: base64DataSchema,
});

/**
 * The local tool result body: exactly one of `result` (2 MB) or `error` (8 KB);
 * `files` only with `result` (ignored with `error`): at most 20, allowed MIME
 * types, 5 MB decoded in total.
 */
export const toolResultSchema = z
  .object({
    toolUseId: z.string().min(1, 'must not be empty').max(200),
    result: z.string().optional(),
    error: z.string().optional(),
    // Checked below, and only with a result: with `error` the spec ignores files, whatever they hold.
    files: documentedAs(z.unknown(), z.array(fileSchema).max(FILES_MAX)).optional(),
  })
  .superRefine((body, context) => {
    if ((body.result === undefined) === (body.error === undefined)) {
      context.addIssue({ code: 'custom', path: [], message: 'exactly one of result or error is required' });
      return;
    }
    if (body.result !== undefined && Buffer.byteLength(body.result, 'utf8') > RESULT_MAX_BYTES) {
      context.addIssue({ code: 'custom', path: ['result'], message: 'must be at most 2 MB' });
    }
    if (body.error !== undefined && Buffer.byteLength(body.error, 'utf8') > ERROR_MAX_BYTES) {
      context.addIssue({ code: 'custom', path: ['error'], message: 'must be at most 8 KB' });
    }
  })
  .transform((body, context) => {
    if (body.error !== undefined) return { toolUseId: body.toolUseId, answer: { error: body.error } };
    const files = body.files ?? [];
    if (!Array.isArray(files)) {
      context.addIssue({ code: 'custom', path: ['files'], message: 'must be an array' });
      return z.NEVER;
    }
    if (files.length > FILES_MAX) {
      context.addIssue({ code: 'custom', path: ['files'], message: `at most ${FILES_MAX} files` });
      return z.NEVER;
    }
    const parsed = [];
    let total = 0;
    for (const [index, file] of files.entries()) {
      const checked = fileSchema.safeParse(file);
      if (!checked.success) {
        for (const issue of checked.error.issues) {
          context.addIssue({
            code: 'custom',
            path: ['files', index, ...issue.path.map(String)],
            message: issue.message,
          });
        }
        return z.NEVER;
      }
      total += decodedBase64Size(checked.data.data);
      parsed.push(checked.data);
    }
    if (total > INLINE_ATTACHMENT_BYTES_MAX) {
      context.addIssue({ code: 'custom', path: ['files'], message: 'files exceed 5 MB decoded in total' });
      return z.NEVER;
    }
    return { toolUseId: body.toolUseId, answer: { result: body.result ?? '', files: parsed } };
  })
  .meta({ id: 'ToolResultBody' });
