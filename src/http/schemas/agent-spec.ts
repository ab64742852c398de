/**
 * Run-creation body: the agent spec plus `prompt` or `messages`. Every `400 invalid_request` rule and
 * limit of the interface for run creation is in this folder (attachments, messages, run controls,
 * limits); `parseInput` turns a failure into "path: message".
 */
import { z } from 'zod';
import type { RunRequest } from '../../domain/run-spec.ts';
import type { SessionSpec } from '../../domain/session.ts';
import { toolRefsSchema } from './tool-ref.ts';

import { messagesSchema } from './messages.ts';
import {
  budgetsSchema,
  loopDetectionSchema,
  metadataSchema,
  outputSchemaSchema,
  planSchema,
  reasoningLevelField,
  supervisorSchema,
  toolBudgetsSchema,
} from './run-controls.ts';
import { CONTENT_MAX_CHARS } from './limits.ts';
import { formatNumber, intBetween, stringAtMost } from './zod-helpers.ts';

export * from './attachments.ts';
export * from './limits.ts';
export * from './messages.ts';
export * from './run-controls.ts';

/**
 * The agent spec's fields, shared by run creation and session creation. Each schema below produces its
 * domain type (`satisfies z.ZodType<…>`), and these fields are every field of the spec: one added to
 * the domain type fails to compile here until the edge reads it.
 */
export const agentSpecFields = {
  name: z.string({ error: 'must be a string' }).exactOptional(),
  agentId: z.string({ error: 'must be a string' }).exactOptional(),
  systemPrompt: stringAtMost(CONTENT_MAX_CHARS).exactOptional(),
  modelId: z.string({ error: 'must be a string' }).exactOptional(),
  reasoningLevel: reasoningLevelField.exactOptional(),
  tools: toolRefsSchema.exactOptional(),
  budgets: budgetsSchema.exactOptional(),
  outputSchema: outputSchemaSchema.exactOptional(),
  loopDetection: loopDetectionSchema.exactOptional(),
  toolBudgets: toolBudgetsSchema.exactOptional(),
  supervisor: supervisorSchema.exactOptional(),
  plan: planSchema.exactOptional(),
  metadata: metadataSchema.exactOptional(),
} satisfies Record<keyof Omit<SessionSpec, 'localToolTimeoutMs'>, z.ZodType>;

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
        .exactOptional(),
      messages: messagesSchema.exactOptional(),
      localToolTimeoutMs: intBetween(1_000, 3_600_000).exactOptional(),
    } satisfies Record<keyof RunRequest, z.ZodType>,
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
  })
  .meta({ id: 'RunCreateRequest' }) satisfies z.ZodType<RunRequest>;
