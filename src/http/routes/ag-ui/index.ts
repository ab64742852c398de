import type { FastifyInstance } from 'fastify';
import type { Agent } from '../../../domain/agent.ts';
import type { Run } from '../../../domain/run.ts';
import { AG_UI_RUN } from '../../openapi/ag-ui-route-descriptions.ts';
import { describeRoute } from '../../openapi/describe-route.ts';
import { callerTrace } from '../../caller-trace.ts';
import { hostedEndpoint } from '../../plugins/hosted-endpoint.ts';
import { principalOf } from '../../principal-of.ts';
import type { AppResources } from '../../resources.ts';
import { runCredential } from '../../run-credential.ts';
import { RUN_BODY_LIMIT } from '../workspace/runs.ts';
import { sendAgUiStream } from './ag-ui-stream.ts';
import { inputRunMetadata, parseRunAgentInput, threadTurnOf } from './run-agent-input.ts';
import { RunEventTranslator } from './run-event-translator.ts';

/** The path of a workspace's AG-UI agents (what a slug-mismatch hint names). */
export function agUiWorkspacePath(workspaceSlug: string): string {
  return `/api/ag-ui/${workspaceSlug}`;
}

type AgentParams = { workspaceSlug: string; agentSlug: string };

/**
 * The AG-UI endpoint, `POST /api/ag-ui/:workspaceSlug/agents/:agentSlug`: an AG-UI 1.0
 * `RunAgentInput` in, a `text/event-stream` of AG-UI events out. The credentials, scope
 * (`runs:write`) and rate limit (`run_start`) are those of run creation. Everything that can be
 * refused is refused before the stream starts, as an HTTP error `{ error, message }`; once it has
 * started, the run's own failure ends it with `RUN_ERROR`. It carries a message history, so its body
 * limit is a message run's (64 MiB).
 */
export async function agUiRoutes(app: FastifyInstance, options: { resources: AppResources }): Promise<void> {
  const { engine } = options.resources;
  // Streams end as soon as the process begins to stop, as the run streams do.
  const { shutdown, transportLimit } = hostedEndpoint(app, {
    resources: options.resources,
    workspacePath: agUiWorkspacePath,
  });
  app.addHook('onRequest', transportLimit);

  app.post<{ Params: AgentParams; Body: unknown }>(
    '/',
    { bodyLimit: RUN_BODY_LIMIT, ...describeRoute(AG_UI_RUN) },
    async (request, reply) => {
      const input = parseRunAgentInput(request.body);
      const turn = threadTurnOf(input);
      const credential = runCredential(principalOf(request));
      const threads = engine.agentThreads;
      const agent: Agent = await threads.authorize(credential, request.params.agentSlug);
      let started: { run: Run; sessionId: string };
      let answered: string[] = [];
      if (turn.kind === 'message') {
        started = await threads.send(
          credential,
          agent,
          {
            threadId: input.threadId,
            prompt: turn.prompt,
            tools: turn.tools,
            metadata: inputRunMetadata(input),
          },
          callerTrace(request),
        );
      } else {
        started = await threads.answer(credential, agent, input.threadId, turn.answers);
        answered = turn.answers.map((answer) => answer.toolUseId);
      }
      const translator = new RunEventTranslator({
        threadId: input.threadId,
        inputRunId: input.runId,
        runId: started.run.id,
        sessionId: started.sessionId,
        answered,
      });
      await sendAgUiStream(reply, translator, (signal) => threads.follow(started.run.id, signal), {
        stop: shutdown,
        metrics: options.resources.metrics,
        heartbeatMs: engine.heartbeatMs,
        logger: request.log,
      });
    },
  );
}
