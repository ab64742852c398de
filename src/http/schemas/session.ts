import { z } from 'zod';
import { IF_BUSY_STRATEGIES, type SessionMessageRequest, type SessionSpec } from '../../domain/session.ts';
import { agentSpecFields, messagesSchema, metadataSchema, runRequestSchema } from './agent-spec.ts';
import { documentedAs } from './documented-input.ts';
import { CONTENT_MAX_CHARS } from './limits.ts';
import { integerParameter, metadataFiltersSchema } from './list-query.ts';

/** `POST {ws}/agent-sessions`: the agent spec without `prompt` or `messages`. */
export const sessionCreateSchema = z
  .object(
    {
      ...agentSpecFields,
      localToolTimeoutMs: runRequestSchema.shape.localToolTimeoutMs,
      // Accepted only to be refused with a message pointing at /messages.
      prompt: documentedAs(z.unknown(), z.never()).exactOptional(),
      messages: documentedAs(z.unknown(), z.never()).exactOptional(),
    },
    { error: 'must be a JSON object' },
  )
  .superRefine((body, context) => {
    if (body.prompt !== undefined || body.messages !== undefined) {
      context.addIssue({
        code: 'custom',
        message: 'session creation takes the agent spec without prompt or messages; send them to /messages',
      });
    }
    // A session has no messages at creation, so of the run rule's three ways only two remain.
    if (!body.agentId?.trim() && !body.systemPrompt?.trim()) {
      context.addIssue({
        code: 'custom',
        path: ['systemPrompt'],
        message: 'required unless agentId is set (a session is created without messages)',
      });
    }
  })
  .transform(({ prompt: _prompt, messages: _messages, ...spec }) => spec)
  .meta({ id: 'SessionCreateRequest' }) satisfies z.ZodType<SessionSpec>;

/** `POST {ws}/agent-sessions/{id}/messages`: the input, refreshed tools, and one-run overrides. */
export const sessionMessageSchema = z
  .object(
    {
      prompt: z.string().min(1).max(CONTENT_MAX_CHARS).exactOptional(),
      messages: messagesSchema.exactOptional(),
      tools: agentSpecFields.tools,
      reasoningLevel: agentSpecFields.reasoningLevel,
      outputSchema: agentSpecFields.outputSchema,
      loopDetection: agentSpecFields.loopDetection,
      toolBudgets: agentSpecFields.toolBudgets,
      supervisor: agentSpecFields.supervisor,
      plan: agentSpecFields.plan,
      metadata: metadataSchema.exactOptional(),
      localToolTimeoutMs: runRequestSchema.shape.localToolTimeoutMs,
      ifBusy: z
        .enum(IF_BUSY_STRATEGIES, { error: 'must be reject, enqueue, interrupt or rollback' })
        .exactOptional()
        .describe(
          'What to do if a run of the session has not ended: `reject` (default, `409 session_busy`), `enqueue` (the run waits, queued, and starts after the earlier runs end), `interrupt` (the running run is cancelled; its completed turns stay in the history), `rollback` (the running run is cancelled and everything it appended is removed).',
        ),
    } satisfies Record<keyof SessionMessageRequest, z.ZodType>,
    { error: 'must be a JSON object' },
  )
  .superRefine((body, context) => {
    if ((body.prompt === undefined) === (body.messages === undefined)) {
      context.addIssue({ code: 'custom', message: 'exactly one of prompt or messages is required' });
    }
  })
  .meta({ id: 'SessionMessageRequest' }) satisfies z.ZodType<SessionMessageRequest>;

/** `GET {ws}/agent-sessions` query: repeatable `metadata=key:value`, `status`, `limit`, `offset`. */
export const sessionListQuerySchema = z.object({
  metadata: metadataFiltersSchema,
  status: z.enum(['active', 'ended'], { error: 'must be active or ended' }).optional(),
  limit: integerParameter(1, 200).default(50),
  offset: integerParameter(0, Number.MAX_SAFE_INTEGER).default(0),
});

/** `GET …/{sessionId}/events` query: `full` (default) or `lastMessages=N` (ignored when `full` is set). */
export const sessionReplayQuerySchema = z.object({
  full: z.enum(['1', 'true', '0', 'false'], { error: 'must be 1, true, 0 or false' }).optional(),
  lastMessages: integerParameter(0, 100_000).optional(),
});
