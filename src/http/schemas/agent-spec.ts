/**
 * Run-creation body: the agent spec plus `prompt` or `messages`. Every `400 invalid_request` rule and
 * limit of the interface for run creation lives here; `parseInput` turns a failure into "path: message".
 */
import { z } from 'zod';
import { reasoningLevelSchema } from './common.ts';
import { toolRefsSchema } from './tool-ref.ts';

// ---------------------------------------------------------------------------------------------------
// Limits (interface "Limits" table)
// ---------------------------------------------------------------------------------------------------

export const CONTENT_MAX_CHARS = 200_000;
export const MESSAGES_MAX = 200;
export const LAST_USER_ATTACHMENTS_MAX = 20;
/** Inline (`input_file`) bytes per run, decoded: 5 MB. */
export const INLINE_ATTACHMENT_BYTES_MAX = 5 * 1024 * 1024;
export const OUTPUT_SCHEMA_BYTES_MAX = 32 * 1024;
export const METADATA_ENTRIES_MAX = 16;
export const METADATA_VALUE_MAX_CHARS = 256;
export const METADATA_BYTES_MAX = 4 * 1024;
export const METADATA_KEY_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
export const OUTPUT_SCHEMA_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
export const TOOL_BUDGETS_MAX = 32;
export const PLAN_STEPS_MAX = 100;

const formatNumber = (value: number) => value.toLocaleString('en-US');

/** An integer in [min, max], with one message for every way of missing it. */
function intBetween(min: number, max: number) {
  const message = `must be an integer from ${formatNumber(min)} to ${formatNumber(max)}`;
  return z.number({ error: message }).int(message).min(min, message).max(max, message);
}

function stringAtMost(max: number) {
  return z.string({ error: 'must be a string' }).max(max, `must be at most ${formatNumber(max)} characters`);
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** UTF-8 size of the value's JSON serialization; Infinity when it cannot be serialized. */
function serializedBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * A field that is either a scalar form (`false`, `true`, a keyword) or an object form. Objects are parsed by
 * `object` alone so a mistake inside one is reported at its own path (a plain union would only say "Invalid
 * input"); anything else is parsed by `scalar`, and a failure there reports `error`.
 */
function scalarOrObject<S extends z.ZodType, O extends z.ZodType>(scalar: S, object: O, error: string) {
  return z.unknown().transform((value, ctx): z.output<S> | z.output<O> => {
    const isObject = isPlainObject(value);
    const parsed = (isObject ? object : scalar).safeParse(value);
    if (parsed.success) return parsed.data as z.output<S> | z.output<O>;
    for (const issue of parsed.error.issues) {
      ctx.addIssue({ code: 'custom', message: isObject ? issue.message : error, path: issue.path });
    }
    return z.NEVER;
  });
}

// ---------------------------------------------------------------------------------------------------
// Attachments
// ---------------------------------------------------------------------------------------------------

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

/**
 * Whether `mime` is an allowed attachment type: one of ALLOWED_ATTACHMENT_MIME or any `text/*` subtype.
 * Compared case-insensitively (MIME types are case-insensitive); parameters such as `; charset=` are not
 * accepted.
 */
export function isAllowedAttachmentMime(mime: string): boolean {
  const lower = mime.toLowerCase();
  return ALLOWED_MIME_SET.has(lower) || TEXT_SUBTYPE_PATTERN.test(lower);
}

const ALLOWED_MIME_DESCRIPTION = `${ALLOWED_ATTACHMENT_MIME.join(', ')} or any other text/* type`;

/** An allowed attachment MIME type, normalized to lower case. */
export const attachmentMimeSchema = z
  .string({ error: 'must be a string' })
  .refine(isAllowedAttachmentMime, {
    error: (issue) =>
      `${JSON.stringify(issue.input)} is not an allowed attachment type (allowed: ${ALLOWED_MIME_DESCRIPTION})`,
  })
  .transform((mime) => mime.toLowerCase());

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
  mimeType: attachmentMimeSchema.optional(),
  filename: z.string({ error: 'must be a string' }).optional(),
});

export const attachmentSchema = z.discriminatedUnion(
  'type',
  [inlineFileAttachmentSchema, urlFileAttachmentSchema],
  { error: 'must be an object whose type is input_file or input_file_url' },
);
export type Attachment = z.output<typeof attachmentSchema>;

// ---------------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------------

export const messageSchema = z.object(
  {
    role: z.enum(['user', 'assistant', 'system'], { error: 'must be user, assistant or system' }),
    content: stringAtMost(CONTENT_MAX_CHARS),
    attachments: z.array(attachmentSchema, { error: 'must be an array' }).optional(),
  },
  { error: 'must be an object { role, content, attachments? }' },
);
export type Message = z.output<typeof messageSchema>;

/** Index of the last message whose role is not `system`, or -1. */
export function lastNonSystemIndex(messages: readonly Pick<Message, 'role'>[]): number {
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

// ---------------------------------------------------------------------------------------------------
// Per-run controls
// ---------------------------------------------------------------------------------------------------

/** Flat string-to-string map: ≤16 entries, key ^[A-Za-z0-9._-]{1,64}$, value ≤256 chars, JSON ≤4 KB. */
export const metadataSchema = z
  .record(z.string().regex(METADATA_KEY_PATTERN), stringAtMost(METADATA_VALUE_MAX_CHARS), {
    error: (issue) =>
      issue.code === 'invalid_key'
        ? 'key must match ^[A-Za-z0-9._-]{1,64}$'
        : 'must be an object mapping string keys to string values',
  })
  .superRefine((metadata, ctx) => {
    const entries = Object.keys(metadata).length;
    if (entries > METADATA_ENTRIES_MAX) {
      ctx.addIssue({
        code: 'custom',
        message: `must have at most ${METADATA_ENTRIES_MAX} entries (got ${entries})`,
      });
    }
    const bytes = serializedBytes(metadata);
    if (bytes > METADATA_BYTES_MAX) {
      ctx.addIssue({
        code: 'custom',
        message: `serialized size must be at most 4 KB (${formatNumber(METADATA_BYTES_MAX)} bytes; got ${formatNumber(bytes)})`,
      });
    }
  });

const outputSchemaObject = z
  .object(
    {
      name: z
        .string({ error: 'must be a string' })
        .regex(OUTPUT_SCHEMA_NAME_PATTERN, 'must match ^[a-zA-Z0-9_-]{1,64}$')
        .optional(),
      schema: z.custom<Record<string, unknown>>(
        isPlainObject,
        'required: a JSON Schema whose root is a JSON object (not null, not an array)',
      ),
      enforcement: z.enum(['best_effort', 'strict'], { error: 'must be best_effort or strict' }).optional(),
    },
    { error: 'must be an object { name?, schema, enforcement? }' },
  )
  .superRefine((value, ctx) => {
    const bytes = serializedBytes(value);
    if (bytes > OUTPUT_SCHEMA_BYTES_MAX) {
      ctx.addIssue({
        code: 'custom',
        message: `serialized size must be at most 32 KB (${formatNumber(OUTPUT_SCHEMA_BYTES_MAX)} bytes; got ${formatNumber(bytes)})`,
      });
    }
  });

/** Structured final reply; the size limit counts what the client sent, then defaults are filled in. */
export const outputSchemaSchema = outputSchemaObject.transform(({ name, schema, enforcement }) => ({
  name: name ?? 'output',
  schema,
  enforcement: enforcement ?? 'best_effort',
}));
export type OutputSchemaSpec = z.output<typeof outputSchemaSchema>;

export const LOOP_DETECTION_DEFAULTS = { consecutiveThreshold: 3, hardCutoffThreshold: 6 } as const;

const loopDetectionObject = z
  .object({
    consecutiveThreshold: intBetween(2, 100).optional(),
    hardCutoffThreshold: intBetween(3, 100).optional(),
  })
  .transform((value, ctx) => {
    const consecutiveThreshold = value.consecutiveThreshold ?? LOOP_DETECTION_DEFAULTS.consecutiveThreshold;
    const hardCutoffThreshold = value.hardCutoffThreshold ?? LOOP_DETECTION_DEFAULTS.hardCutoffThreshold;
    if (hardCutoffThreshold <= consecutiveThreshold) {
      ctx.addIssue({
        code: 'custom',
        path: ['hardCutoffThreshold'],
        message: `must be greater than consecutiveThreshold (got ${hardCutoffThreshold} and ${consecutiveThreshold}; the defaults are ${LOOP_DETECTION_DEFAULTS.consecutiveThreshold} and ${LOOP_DETECTION_DEFAULTS.hardCutoffThreshold})`,
      });
      return z.NEVER;
    }
    return { consecutiveThreshold, hardCutoffThreshold };
  });

/** `false` disables the guard; an object sets thresholds, with the defaults 3 and 6 filled in. */
export const loopDetectionSchema = scalarOrObject(
  z.literal(false),
  loopDetectionObject,
  'must be false or an object { consecutiveThreshold?, hardCutoffThreshold? }',
);
export type LoopDetection = z.output<typeof loopDetectionSchema>;

/** Tool name → `{ maxCalls }`: ≤32 entries, key 1 to 120 characters, maxCalls 0 to 1000. */
export const toolBudgetsSchema = z
  .record(
    z.string().min(1).max(120),
    z.object({ maxCalls: intBetween(0, 1000) }, { error: 'must be an object { maxCalls }' }),
    {
      error: (issue) =>
        issue.code === 'invalid_key'
          ? 'tool name key must be 1 to 120 characters'
          : 'must be an object mapping tool names to { maxCalls }',
    },
  )
  .superRefine((budgets, ctx) => {
    const entries = Object.keys(budgets).length;
    if (entries > TOOL_BUDGETS_MAX) {
      ctx.addIssue({
        code: 'custom',
        message: `must have at most ${TOOL_BUDGETS_MAX} entries (got ${entries})`,
      });
    }
  });
export type ToolBudgets = z.output<typeof toolBudgetsSchema>;

const reasoningTriggerSchema = scalarOrObject(
  z.literal(false),
  z.object({ chars: intBetween(1, 50_000).optional(), ms: intBetween(1, 600_000).optional() }),
  'must be false or an object { chars?, ms? }',
);

/** `true` enables the run judge with defaults, `false` disables it, an object tunes it. */
export const supervisorSchema = scalarOrObject(
  z.boolean(),
  z.object({
    interval: intBetween(1, 100).optional(),
    modelId: z.string({ error: 'must be a string' }).optional(),
    reasoningTrigger: reasoningTriggerSchema.optional(),
  }),
  'must be true, false or an object { interval?, modelId?, reasoningTrigger? }',
);
export type Supervisor = z.output<typeof supervisorSchema>;

/** Task plan; the server clamps step count, step length and brief later, this only checks types. */
export const planSchema = scalarOrObject(
  z.union([z.boolean(), z.enum(['auto', 'required'])]),
  z.object({
    mode: z.enum(['off', 'auto', 'required'], { error: 'must be off, auto or required' }).optional(),
    steps: z
      .array(z.string({ error: 'must be a string' }), { error: 'must be an array of strings' })
      .max(PLAN_STEPS_MAX, `must contain at most ${PLAN_STEPS_MAX} steps`)
      .optional(),
    brief: z.string({ error: 'must be a string' }).optional(),
    planOnly: z.boolean({ error: 'must be true or false' }).optional(),
  }),
  'must be true, false, auto, required or an object { mode?, steps?, brief?, planOnly? }',
);
export type Plan = z.output<typeof planSchema>;

export const budgetsSchema = z.object(
  { maxToolTurns: intBetween(1, 1000).optional() },
  { error: 'must be an object { maxToolTurns? }' },
);

/** The shared reasoningLevel schema, with one precise message when neither form matches. */
const reasoningLevelField = z.union(reasoningLevelSchema.options, {
  error: 'must be off, low, medium, high or an integer from 0 to 100',
});

// ---------------------------------------------------------------------------------------------------
// Agent spec and run request
// ---------------------------------------------------------------------------------------------------

/** The agent spec's fields, shared by run creation and session creation. */
export const agentSpecFields = {
  name: z.string({ error: 'must be a string' }).optional(),
  agentId: z.string({ error: 'must be a string' }).optional(),
  systemPrompt: stringAtMost(CONTENT_MAX_CHARS).optional(),
  modelId: z.string({ error: 'must be a string' }).optional(),
  reasoningLevel: reasoningLevelField.optional(),
  tools: toolRefsSchema.optional(),
  budgets: budgetsSchema.optional(),
  outputSchema: outputSchemaSchema.optional(),
  loopDetection: loopDetectionSchema.optional(),
  toolBudgets: toolBudgetsSchema.optional(),
  supervisor: supervisorSchema.optional(),
  plan: planSchema.optional(),
  metadata: metadataSchema.optional(),
};

const isNonBlank = (text: string | undefined) => text !== undefined && text.trim() !== '';

/**
 * `POST {ws}/agent-runs`: the agent spec plus exactly one of `prompt` or `messages`. The run needs an
 * `agentId`, a non-empty `systemPrompt` or a non-empty `system` message. Unknown top-level fields are dropped.
 */
export const runRequestSchema = z
  .object(
    {
      ...agentSpecFields,
      prompt: z
        .string({ error: 'must be a string' })
        .min(1, `must be 1 to ${formatNumber(CONTENT_MAX_CHARS)} characters`)
        .max(CONTENT_MAX_CHARS, `must be 1 to ${formatNumber(CONTENT_MAX_CHARS)} characters`)
        .optional(),
      messages: messagesSchema.optional(),
      localToolTimeoutMs: intBetween(1_000, 3_600_000).optional(),
    },
    { error: 'must be a JSON object' },
  )
  .superRefine((request, ctx) => {
    const hasPrompt = request.prompt !== undefined;
    const hasMessages = request.messages !== undefined;
    if (hasPrompt === hasMessages) {
      ctx.addIssue({
        code: 'custom',
        message: `exactly one of prompt or messages is required (${hasPrompt ? 'both were given' : 'neither was given'})`,
      });
    }
    const hasSystemMessage =
      request.messages?.some((message) => message.role === 'system' && isNonBlank(message.content)) ?? false;
    if (!isNonBlank(request.agentId) && !isNonBlank(request.systemPrompt) && !hasSystemMessage) {
      ctx.addIssue({
        code: 'custom',
        path: ['systemPrompt'],
        message: 'required unless agentId is set or messages include a non-empty system message',
      });
    }
  });
export type RunRequest = z.output<typeof runRequestSchema>;
