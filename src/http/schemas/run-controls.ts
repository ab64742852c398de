import { z } from 'zod';
import { metadataLimitViolations } from '../../domain/metadata.ts';
import type {
  BudgetsSetting,
  LoopDetectionSetting,
  OutputSchemaSetting,
  PlanSetting,
  SupervisorSetting,
  ToolBudgetsSetting,
} from '../../domain/run-controls.ts';
import {
  METADATA_KEY_PATTERN,
  METADATA_VALUE_MAX_CHARS,
  OUTPUT_SCHEMA_BYTES_MAX,
  OUTPUT_SCHEMA_NAME_PATTERN,
  PLAN_BRIEF_MAX_CHARS,
  PLAN_STEP_MAX_CHARS,
  PLAN_STEPS_MAX,
  TOOL_BUDGETS_MAX,
} from './limits.ts';
import { reasoningLevelSchema } from './common.ts';
import { documentedAs } from './documented-input.ts';
import {
  formatNumber,
  intBetween,
  isPlainObject,
  scalarOrObject,
  serializedBytes,
  stringAtMost,
} from './zod-helpers.ts';

/** Flat string-to-string map: ≤16 entries, key ^[A-Za-z0-9._-]{1,64}$, value ≤256 chars, JSON ≤4 KB. */
export const metadataSchema = z
  .record(z.string().regex(METADATA_KEY_PATTERN), stringAtMost(METADATA_VALUE_MAX_CHARS), {
    error: (issue) =>
      issue.code === 'invalid_key'
        ? 'key must match ^[A-Za-z0-9._-]{1,64}$'
        : 'must be an object mapping string keys to string values',
  })
  .superRefine((metadata, ctx) => {
    for (const message of metadataLimitViolations(metadata)) ctx.addIssue({ code: 'custom', message });
  }) satisfies z.ZodType<Record<string, string>>;

const outputSchemaObject = z
  .object(
    {
      name: z
        .string({ error: 'must be a string' })
        .regex(OUTPUT_SCHEMA_NAME_PATTERN, 'must match ^[a-zA-Z0-9_-]{1,64}$')
        .exactOptional(),
      schema: documentedAs(
        z.custom<Record<string, unknown>>(
          isPlainObject,
          'required: a JSON Schema whose root is a JSON object (not null, not an array)',
        ),
        z.record(z.string(), z.unknown()),
      ),
      enforcement: z
        .enum(['best_effort', 'strict'], { error: 'must be best_effort or strict' })
        .exactOptional(),
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
})) satisfies z.ZodType<OutputSchemaSetting>;

export const LOOP_DETECTION_DEFAULTS = { consecutiveThreshold: 3, hardCutoffThreshold: 6 } as const;

const loopDetectionObject = z
  .object({
    consecutiveThreshold: intBetween(2, 100).exactOptional(),
    hardCutoffThreshold: intBetween(3, 100).exactOptional(),
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
) satisfies z.ZodType<LoopDetectionSetting>;

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
  }) satisfies z.ZodType<ToolBudgetsSetting>;

const reasoningTriggerSchema = scalarOrObject(
  z.literal(false),
  z.object({ chars: intBetween(1, 50_000).exactOptional(), ms: intBetween(1, 600_000).exactOptional() }),
  'must be false or an object { chars?, ms? }',
);

/** `true` enables the run judge with defaults, `false` disables it, an object tunes it. */
export const supervisorSchema = scalarOrObject(
  z.boolean(),
  z.object({
    interval: intBetween(1, 100).exactOptional(),
    modelId: z.string({ error: 'must be a string' }).exactOptional(),
    reasoningTrigger: reasoningTriggerSchema.exactOptional(),
  }),
  'must be true, false or an object { interval?, modelId?, reasoningTrigger? }',
) satisfies z.ZodType<SupervisorSetting>;

/** Task plan: types are checked; step count, step length and brief are clamped, as the spec says. */
export const planSchema = scalarOrObject(
  z.union([z.boolean(), z.enum(['auto', 'required'])]),
  z.object({
    mode: z.enum(['off', 'auto', 'required'], { error: 'must be off, auto or required' }).exactOptional(),
    steps: z
      .array(z.string({ error: 'must be a string' }), { error: 'must be an array of strings' })
      .transform((steps) => steps.slice(0, PLAN_STEPS_MAX).map((step) => step.slice(0, PLAN_STEP_MAX_CHARS)))
      .exactOptional(),
    brief: z
      .string({ error: 'must be a string' })
      .transform((brief) => brief.slice(0, PLAN_BRIEF_MAX_CHARS))
      .exactOptional(),
    planOnly: z.boolean({ error: 'must be true or false' }).exactOptional(),
  }),
  'must be true, false, auto, required or an object { mode?, steps?, brief?, planOnly? }',
) satisfies z.ZodType<PlanSetting>;

export const budgetsSchema = z.object(
  { maxToolTurns: intBetween(1, 1000).exactOptional() },
  { error: 'must be an object { maxToolTurns? }' },
) satisfies z.ZodType<BudgetsSetting>;

/** The shared reasoningLevel schema, with one precise message when neither form matches. */
export const reasoningLevelField = z.union(reasoningLevelSchema.options, {
  error: 'must be off, low, medium, high or an integer from 0 to 100',
});
