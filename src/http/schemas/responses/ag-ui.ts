/** The AG-UI endpoint's input and events, documented in outline (AG-UI 1.0 defines them in full). */
import { z } from 'zod';
import { openObject } from './open-object.ts';

const agUiMessage = openObject({
  id: z.string(),
  role: z.enum(['developer', 'system', 'assistant', 'user', 'tool', 'activity', 'reasoning']),
  content: z.unknown().optional(),
  toolCallId: z.string().optional().describe('`tool` messages: the frontend tool call they answer.'),
});

const agUiTool = openObject({
  name: z.string(),
  description: z.string(),
  parameters: z.unknown().optional().describe("A JSON Schema of the tool's arguments."),
});

export const agUiRunAgentInputSchema = openObject({
  threadId: z
    .string()
    .describe("The conversation: one session of the agent, opened on the thread's first input."),
  runId: z.string().describe('Echoed in `RUN_STARTED` and `RUN_FINISHED`.'),
  messages: z
    .array(agUiMessage)
    .describe(
      'Only the tail is read: a last `user` message starts a run; `tool` messages after the last `assistant` message answer the frontend tool calls the thread waits for.',
    ),
  tools: z.array(agUiTool).optional().describe('Frontend tools: client-resolved tools of the run.'),
  context: z.array(z.unknown()).optional(),
  state: z.unknown().optional(),
  forwardedProps: z.unknown().optional(),
}).meta({ id: 'AgUiRunAgentInput', description: "AG-UI 1.0's RunAgentInput." });

export const agUiEventSchema = openObject({
  type: z
    .string()
    .describe(
      '`RUN_STARTED`, `TEXT_MESSAGE_*`, `REASONING_*`, `TOOL_CALL_*`, `CUSTOM`, `RUN_FINISHED` or `RUN_ERROR`.',
    ),
}).meta({ id: 'AgUiEvent', description: 'One AG-UI 1.0 event per `data:` frame.' });
