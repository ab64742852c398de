/** Answers of the run routes: creation, snapshot, tool results, cancel, feedback. */
import { z } from 'zod';
import type { RunFeedback } from '../../../domain/feedback.ts';
import { RUN_STATUSES } from '../../../domain/run.ts';
import { CLIENT_TOOL_KINDS } from '../../../domain/tool-ref.ts';
import type { runListEntry } from '../../presenters/run-list-entry.ts';
import type { runSnapshot } from '../../presenters/run-snapshot.ts';
import { openObject } from './open-object.ts';
import type { Admits } from './schema-agreement.ts';
import { planSnapshotSchema } from './run-events.ts';
import {
  modelInfoSchema,
  reasoningEffortSchema,
  structuredOutputReportSchema,
  tokenUsageSchema,
  turnsSchema,
} from './usage.ts';

const isoDate = z.string().describe('ISO 8601 date-time.');

export const runCreatedSchema = z
  .object({
    runId: z.string(),
    streamUrl: z.string().describe('The path of the run event stream (relative to the service).'),
  })
  .meta({ id: 'RunCreated', description: 'The run was accepted; read its events at streamUrl.' });

export const runStatusSchema = z.enum(RUN_STATUSES).meta({ id: 'RunStatus' });

const toolRefView = openObject({ kind: z.string() });

export const runSpecSchema = openObject({
  effective: openObject({
    systemPrompt: z.string(),
    model: z.object({
      ref: z.string().describe('`platform:<offeringId>` or `provider:<id>:<vendorModelId>`.'),
      id: z.string(),
      provider: z.string(),
      vendorModelId: z.string(),
    }),
    reasoningLevel: z.number().int().min(0).max(100).nullable(),
    reasoningEffort: reasoningEffortSchema.nullable().optional(),
    tools: z.array(toolRefView),
    localToolTimeoutMs: z.number().int(),
    sessionHistory: z
      .object({
        sessionId: z.string(),
        items: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe(
            'Absent on a run that waited for its busy session: it read the whole history when it started.',
          ),
      })
      .optional(),
    history: z.array(z.unknown()).optional(),
  }),
}).meta({
  id: 'RunSpec',
  description:
    'The request as sent (inline attachment bytes replaced by their size) plus `effective`: the prompt, model, reasoning level, tools and timeout creation resolved.',
});

export const runSnapshotSchema = z
  .object({
    runId: z.string(),
    status: runStatusSchema,
    agentId: z.string().nullable(),
    sessionId: z.string().nullable(),
    createdAt: isoDate,
    updatedAt: isoDate,
    endedAt: isoDate.nullable(),
    cancelRequested: z.boolean(),
    spec: runSpecSchema,
    metadata: z.record(z.string(), z.string()),
    finalText: z.string().nullable(),
    error: z.string().nullable(),
    failureReason: z
      .object({ errorClass: z.string(), finishReason: z.string().nullable() })
      .optional()
      .describe('Only when the run failed.'),
    pendingToolCalls: z
      .array(
        z.object({
          toolUseId: z.string(),
          name: z.string(),
          kind: z.enum(CLIENT_TOOL_KINDS),
        }),
      )
      .describe(
        'Client-resolved calls still awaiting their one result, oldest first (empty once the run ended). A client that restarts answers these; the arguments are on the `local_tool_call` event of the stream.',
      ),
    tokens: tokenUsageSchema.nullable().describe('Null until the terminal event is written.'),
    turns: turnsSchema.nullable(),
    model: modelInfoSchema.nullable(),
    structuredOutput: structuredOutputReportSchema
      .extend({
        value: z
          .unknown()
          .optional()
          .describe(
            'The final reply parsed as JSON: only when the run succeeded and the schema was enforced on it (schemaEnforced true).',
          ),
      })
      .optional()
      .meta({
        id: 'RunStructuredOutput',
        description:
          "Once the run has ended with a `result` or `error`: that event's `structuredOutput`, with the validated reply as `value`.",
      }),
    plan: planSnapshotSchema
      .optional()
      .describe('The current task plan (the latest `task_plan` snapshot), once the run has one.'),
  })
  .meta({ id: 'RunSnapshot', description: 'A run as stored; no live subscription.' });

export const runListEntrySchema = z
  .object({
    runId: z.string(),
    status: runStatusSchema.describe('`waiting`: the run awaits a client tool result.'),
    agentId: z.string().nullable().describe('Null for an ephemeral spec.'),
    sessionId: z.string().nullable().describe('Null for a one-shot run.'),
    model: modelInfoSchema.nullable().describe('Null until the run ends, as on the snapshot.'),
    createdAt: isoDate,
    endedAt: isoDate.nullable(),
    tokens: tokenUsageSchema.nullable().describe('Null until the run ends.'),
    turns: turnsSchema.nullable().describe('Null until the run ends.'),
    metadata: z.record(z.string(), z.string()),
  })
  .meta({ id: 'RunListEntry' });

export const runListSchema = z
  .object({
    runs: z.array(runListEntrySchema).describe('Newest first.'),
    nextCursor: z
      .string()
      .nullable()
      .describe('Pass as `cursor` for the next page; null after the last page.'),
  })
  .meta({ id: 'RunList' });

export const toolResultAcceptedSchema = z
  .object({
    toolUseId: z.string(),
    accepted: z.literal(true),
    ignored: z
      .literal(true)
      .optional()
      .describe('The run was cancelled: the result was accepted and ignored.'),
  })
  .meta({ id: 'ToolResultAccepted' });

export const runCancelledSchema = z
  .object({
    runId: z.string(),
    status: z
      .union([z.literal('cancelling'), runStatusSchema])
      .describe('`cancelling` while the run winds down; its final status once it has ended.'),
  })
  .meta({ id: 'RunCancelled', description: 'Cancellation is idempotent.' });

const verdictSchema = z.enum(['UP', 'DOWN']);

export const feedbackSchema = z
  .object({
    id: z.string(),
    verdict: verdictSchema,
    targetKind: z.literal('agent_run'),
    agentRunId: z.string(),
  })
  .meta({ id: 'Feedback' });

export const feedbackEntrySchema = feedbackSchema
  .extend({
    explanation: z.string().nullable(),
    contentSnapshot: z.string().nullable(),
    authorApiKeyId: z.string().nullable().describe('Null for OAuth tokens.'),
    createdAt: isoDate,
    updatedAt: isoDate,
  })
  .meta({ id: 'FeedbackEntry' });

export const feedbackListSchema = z
  .object({ limit: z.number().int(), offset: z.number().int(), feedback: z.array(feedbackEntrySchema) })
  .meta({ id: 'FeedbackList' });

export type _RunAnswersAgreeWithPresenters = [
  Admits<z.output<typeof runSnapshotSchema>, ReturnType<typeof runSnapshot>>,
  Admits<z.output<typeof runListEntrySchema>, ReturnType<typeof runListEntry>>,
  Admits<z.output<typeof verdictSchema>, RunFeedback['verdict']>,
];
