/** The description of the AG-UI endpoint's route (`routes/ag-ui/`), ready for `describeRoute`. */
import { agUiEventSchema, agUiRunAgentInputSchema } from '../schemas/responses/ag-ui.ts';
import type { RouteDescription } from './describe-route.ts';

export const AG_UI_RUN: RouteDescription = {
  operationId: 'runAgUiAgent',
  summary: 'Run a workspace agent for an AG-UI front end',
  description:
    "Takes an AG-UI 1.0 `RunAgentInput` and answers a `text/event-stream` of AG-UI events. The thread is a session of the agent; a user message starts a run in it (its `tools` are frontend tools, whose call ends the stream with `RUN_FINISHED` and `pendingToolCallIds`); `tool` messages deliver the answers to the thread's waiting run and stream its continuation. The service's run id is in `RUN_STARTED`'s `rawEvent` and `metadata`. Failures before the stream are HTTP errors; a run that fails ends the stream with `RUN_ERROR`.",
  tags: ['ag-ui'],
  scopes: ['runs:write'],
  bucket: 'run_start',
  body: agUiRunAgentInputSchema,
  responses: {
    200: {
      description: 'The AG-UI events of the run, one per `data:` frame.',
      contentType: 'text/event-stream',
      body: agUiEventSchema,
    },
  },
  errors: [
    'forbidden',
    'conflict',
    'session_busy',
    'session_ended',
    'unknown_tool_use',
    'run_terminal',
    'invalid_model',
  ],
};
