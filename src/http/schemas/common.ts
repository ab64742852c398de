import { z } from 'zod';
import { isHostToolName, reservedToolNameMessage } from '../../domain/host-tools.ts';
import { SLUG_PATTERN } from '../../domain/slug.ts';
import { documentedAs } from './documented-input.ts';

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_]{1,64}$/;

export const slugSchema = z
  .string()
  .regex(
    SLUG_PATTERN,
    'must be 1-64 lowercase letters, digits or dashes, not starting or ending with a dash',
  );
export const toolNameSchema = z.string().regex(TOOL_NAME_PATTERN, 'must match ^[a-zA-Z0-9_]{1,64}$');
/** The name of a tool a spec or a workspace declares: never one the service's controls serve themselves. */
export const declaredToolNameSchema = toolNameSchema.superRefine((name, context) => {
  if (isHostToolName(name)) context.addIssue({ code: 'custom', message: reservedToolNameMessage(name) });
});
export const httpUrlSchema = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });
export const httpsUrlSchema = z.url({ protocol: /^https$/, error: 'must be an https:// URL' });

export const HEADER_VALUE_MAX = 8 * 1024;
export const headersSchema = z.record(
  z.string().min(1),
  z.string().max(HEADER_VALUE_MAX, 'each header value must be at most 8 KB'),
);

/** A JSON object (not null, not an array). */
export const jsonObjectSchema = documentedAs(
  z.custom<Record<string, unknown>>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
    'must be a JSON object',
  ),
  z.record(z.string(), z.unknown()),
);

export const reasoningLevelSchema = z.union([
  z.enum(['off', 'low', 'medium', 'high'], {
    error: 'must be off, low, medium, high or an integer from 0 to 100',
  }),
  z
    .number()
    .int('must be an integer from 0 to 100')
    .min(0, 'must be an integer from 0 to 100')
    .max(100, 'must be an integer from 0 to 100'),
]);
