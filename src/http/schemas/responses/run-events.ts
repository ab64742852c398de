/**
 * The run event union of the SSE stream (the spec's Events section), one schema per event type as
 * `domain/run-events.ts` types what the engine emits: `{ seq, type, data }`, `type` discriminating `data`.
 */
import { z } from 'zod';
import type { RunEventData, RunEventType } from '../../../domain/run-events.ts';
import type { Admits } from './schema-agreement.ts';
import { modelInfoSchema, structuredOutputReportSchema, tokenUsageSchema, turnsSchema } from './usage.ts';

const count = z.number().int().min(0);
const jsonObject = z.record(z.string(), z.unknown());

const textData = (id: string, description: string) =>
  z.object({ text: z.string() }).meta({ id, description });

const fileMetadata = z.object({
  filename: z.string(),
  mimeType: z.string(),
  sizeBytes: count,
});

const planStepStatus = z.enum(['pending', 'in_progress', 'done', 'blocked', 'skipped']);

export const planSnapshotSchema = z
  .object({
    v: z.literal(2),
    planId: z.string(),
    revision: count.describe('Monotonic per plan.'),
    mode: z.string(),
    brief: z.string(),
    steps: z.array(z.object({ id: z.string(), title: z.string(), status: planStepStatus })),
  })
  .meta({ id: 'PlanSnapshot', description: 'The canonical snapshot of a task plan.' });

const usageTriple = { tokens: tokenUsageSchema, turns: turnsSchema, model: modelInfoSchema };

export const runEventDataSchemas = {
  assistant_delta: textData('AssistantDeltaData', 'A piece of the assistant reply.'),
  thinking_delta: textData('ThinkingDeltaData', 'A piece of the model thinking (reasoning level above 0).'),
  assistant_message: z
    .object({
      text: z.string().describe('The whole turn text; may be empty.'),
      turn: count.describe('0-based tool-turn index.'),
      finishReason: z
        .string()
        .nullable()
        .optional()
        .describe(
          'Canonical lowercase stop reason: end_turn, tool_use, max_tokens, refusal, malformed_function_call…',
        ),
      toolCalls: z.array(z.object({ id: z.string(), name: z.string(), input: z.unknown() })).optional(),
    })
    .meta({ id: 'AssistantMessageData', description: 'One completed assistant turn.' }),
  tool_call: z
    .object({ toolUseId: z.string(), name: z.string(), input: z.unknown() })
    .meta({ id: 'ToolCallData', description: 'A server-resolved tool call (informational).' }),
  tool_result: z
    .union([
      z.object({ toolUseId: z.string(), name: z.string(), ok: z.boolean(), summary: z.string() }),
      z.object({
        toolUseId: z.string(),
        name: z.string(),
        result: z.string().describe('Display-truncated result.'),
      }),
    ])
    .meta({ id: 'ToolResultData', description: 'The outcome of a server-resolved tool call.' }),
  tool_files: z
    .object({
      name: z.string(),
      files: z.array(
        fileMetadata.extend({
          storageKey: z.string().optional().describe('Object-store key, not a public URL.'),
          url: z.string().optional().describe('Public HTTPS URL.'),
        }),
      ),
    })
    .meta({
      id: 'ToolFilesData',
      description: 'Files a server-resolved tool returned; precedes the matching tool_result.',
    }),
  local_tool_call: z
    .object({
      toolUseId: z.string(),
      name: z.string(),
      args: jsonObject,
      kind: z
        .enum(['local', 'a2a_local', 'mcp_local'])
        .optional()
        .describe('Absent means local; clients dispatch on it.'),
      agentCard: jsonObject.optional().describe('a2a_local: the card echoed from the spec.'),
      mcpServer: z.string().optional().describe("mcp_local: the ref's name."),
      mcpToolName: z.string().optional().describe('mcp_local: the same as name.'),
      mcpServerInfo: jsonObject.optional().describe('mcp_local: present when the spec carried serverInfo.'),
      annotations: z.unknown().optional().describe("mcp_local: the tool's annotations, echoed."),
    })
    .meta({
      id: 'LocalToolCallData',
      description: 'A client-resolved tool call: post exactly one tool result for its toolUseId.',
    }),
  local_tool_result_in: z
    .object({
      toolUseId: z.string(),
      output: z.string(),
      isError: z.literal(true).optional().describe('Set when the client answered with `error`.'),
      files: z.array(fileMetadata).optional().describe('Metadata only.'),
    })
    .meta({ id: 'LocalToolResultInData', description: 'Echo of a posted local tool result.' }),
  loop_detected: z
    .object({
      consecutiveCount: count,
      hardCutoff: z.boolean().describe('false: soft nudge; true: forced finalise.'),
      tools: z.array(z.string()),
    })
    .meta({ id: 'LoopDetectedData', description: 'The loop guard acted (observability only).' }),
  tool_budget_exceeded: z
    .object({
      tool: z.string(),
      maxCalls: count,
      callIndex: count.describe('1-based attempt count, always above maxCalls.'),
    })
    .meta({ id: 'ToolBudgetExceededData', description: 'A call past its budget was intercepted.' }),
  supervisor: z
    .object({
      action: z.enum(['on_track', 'redirect', 'finalize']),
      reason: z.string(),
      redirect: z.string().optional().describe('Only for redirect.'),
      llmCalls: count,
      phase: z.enum(['turn_boundary', 'reasoning']).optional(),
      model: z.object({ id: z.string(), provider: z.string(), vendorModelId: z.string() }).optional(),
    })
    .meta({ id: 'SupervisorData', description: 'A review by the run supervisor (already applied).' }),
  task_plan: z
    .object({
      v: z.literal(2),
      planId: z.string(),
      revision: count,
      mode: z.string(),
      source: z.string(),
      transition: z.object({ kind: z.string(), stepId: z.string().nullable() }),
      transitionIndex: count,
      transitionCount: count,
      brief: z.string().describe('Mirrored from plan for older clients.'),
      steps: planSnapshotSchema.shape.steps.describe('Mirrored from plan for older clients.'),
      plan: planSnapshotSchema,
    })
    .meta({
      id: 'TaskPlanData',
      description: 'A task-plan update; apply snapshots idempotently by planId plus revision.',
    }),
  result: z
    .object({
      subtype: z.enum(['success', 'error_local_tool_timeout']),
      text: z.string().describe('The final reply.'),
      error: z.string().optional().describe('The message, on failure subtypes.'),
      plan: z
        .object({
          brief: z.string(),
          steps: z.array(z.object({ title: z.string(), status: planStepStatus })),
        })
        .optional()
        .describe('Plan-only runs.'),
      structuredOutput: structuredOutputReportSchema,
      ...usageTriple,
    })
    .meta({ id: 'ResultData', description: 'The run finished (terminal).' }),
  error: z
    .object({
      error: z.string().describe('Human-readable message, also stored on the run.'),
      code: z.string().describe('Equal to errorClass when present, else a small lowercase token.'),
      errorClass: z
        .string()
        .optional()
        .describe(
          'rate_limit, overloaded, server, context_window, truncation, invalid_request, auth, timeout, local_timeout, upstream_deadline, structured_output_schema_rejected, structured_output_not_supported, structured_output_not_enforced, unavailable (the database or Redis did not answer for 5 minutes), unknown; new categories may be added.',
        ),
      finishReason: z.string().nullable().describe('Mirrors the last assistant_message.'),
      partialText: z.string().optional().describe('Text emitted before the failure; diagnostic only.'),
      retryable: z.boolean().optional(),
      apiStatus: z.number().int().optional().describe('Provider HTTP status, when available.'),
      apiCode: z.string().optional().describe('Provider error code, when available.'),
      structuredOutput: structuredOutputReportSchema,
      ...usageTriple,
    })
    .meta({ id: 'ErrorData', description: 'The run failed (terminal).' }),
  cancelled: z
    .object({
      reason: z.string().optional(),
      tokens: tokenUsageSchema.optional(),
      turns: turnsSchema.optional(),
      model: modelInfoSchema.optional(),
    })
    .meta({ id: 'CancelledData', description: 'The run was cancelled (terminal).' }),
} satisfies Record<RunEventType, z.ZodType>;

/** Component names of the events, as the client SDK calls them. */
const EVENT_NAMES: Record<RunEventType, string> = {
  assistant_delta: 'AssistantDeltaEvent',
  thinking_delta: 'ThinkingDeltaEvent',
  assistant_message: 'AssistantMessageEvent',
  tool_call: 'ToolCallEvent',
  tool_result: 'ToolResultEvent',
  tool_files: 'ToolFilesEvent',
  local_tool_call: 'LocalToolCallEvent',
  local_tool_result_in: 'LocalToolResultInEvent',
  loop_detected: 'LoopDetectedEvent',
  tool_budget_exceeded: 'ToolBudgetExceededEvent',
  supervisor: 'SupervisorEvent',
  task_plan: 'TaskPlanEvent',
  result: 'ResultEvent',
  error: 'RunErrorEvent',
  cancelled: 'CancelledEvent',
};

function eventOf<T extends RunEventType>(type: T) {
  return z
    .object({
      seq: z.number().int().min(1).describe('Monotonic per run; the SSE `id` line.'),
      type: z.literal(type).describe('Equals the SSE `event` line; rely on this one.'),
      data: runEventDataSchemas[type],
    })
    .meta({ id: EVENT_NAMES[type] });
}

export const runEventSchema = z
  .discriminatedUnion('type', [
    eventOf('assistant_delta'),
    eventOf('thinking_delta'),
    eventOf('assistant_message'),
    eventOf('tool_call'),
    eventOf('tool_result'),
    eventOf('tool_files'),
    eventOf('local_tool_call'),
    eventOf('local_tool_result_in'),
    eventOf('loop_detected'),
    eventOf('tool_budget_exceeded'),
    eventOf('supervisor'),
    eventOf('task_plan'),
    eventOf('result'),
    eventOf('error'),
    eventOf('cancelled'),
  ])
  .meta({
    id: 'RunEvent',
    description:
      'One frame of the run event stream: `id: <seq>`, `event: <type>`, `data: <this JSON>`. The stream ends right after the terminal event (result, error or cancelled).',
  });

/** The event types whose emitted payload (`domain/run-events.ts`) the schema would refuse: none. */
type Mismatched = {
  [T in RunEventType]: RunEventData[T] extends z.output<(typeof runEventDataSchemas)[T]> ? never : T;
}[RunEventType];
export type _RunEventsAgreeWithDomain = Admits<never, Mismatched>;
