import { TaskState } from '@a2a-js/sdk';
import { LegacyA2AError } from '@a2a-js/sdk/compat/v0_3/server';
import {
  AgentEvent,
  type AgentExecutionEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import type { FastifyBaseLogger } from 'fastify';
import type { Run } from '../../../domain/run.ts';
import type { HostedAgents } from '../../../engine/lifecycle/hosted-agents.ts';
import type { RunService } from '../../../engine/lifecycle/run-service.ts';
import { runLogger } from '../../../engine/lifecycle/run-logger.ts';
import { METADATA_VALUE_MAX_CHARS } from '../../schemas/limits.ts';
import { messageText, taskStatus } from './agent-messages.ts';
import { hostedCallOf, type HostedCall } from './hosted-call.ts';
import { JSON_RPC_CODES, runFailure, startFailure } from './json-rpc-errors.ts';
import { replyOf, runTaskEvents, type RunEnd } from './run-task-events.ts';

export interface HostedAgentExecutorDeps {
  hostedAgents: HostedAgents;
  runs: RunService;
  /** Aborted when the service stops: followers of runs let go (the runs go on). */
  shutdown: AbortSignal;
  logger: FastifyBaseLogger;
}

/**
 * The SDK's agent executor for hosted agents: each message starts the agent's run in its context's
 * session and follows the run's events to the end. A sent message gets the reply message (or the
 * call fails with the run's error); a streamed one gets a Task, its text as artifact updates per
 * model turn, and a final status update carrying the same reply message.
 */
export class HostedAgentExecutor implements AgentExecutor {
  readonly #deps: HostedAgentExecutorDeps;
  /** Streamed tasks whose run is in flight in this process, for `tasks/cancel`. */
  readonly #running = new Map<string, { workspaceId: string; runId: string }>();

  constructor(deps: HostedAgentExecutorDeps) {
    this.#deps = deps;
  }

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const call = hostedCallOf(request.context);
    let run: Run;
    try {
      run = await this.#deps.hostedAgents.send(
        call.credential,
        call.agent,
        {
          contextId: request.contextId,
          text: messageText(request.userMessage),
          metadata: runMetadata(request, call.mode === 'stream'),
        },
        call.caller,
      );
    } catch (error) {
      // Nothing is published: the request handler then answers with this failure.
      call.failure = startFailure(error, this.#deps.logger);
      return;
    }
    if (call.mode === 'stream') await this.#stream(request, bus, run);
    else await this.#send(request, bus, run, call);
  };

  cancelTask = async (taskId: string): Promise<void> => {
    const running = this.#running.get(taskId);
    // The run's `cancelled` event ends the task (canceled) on the bus the request handler waits on.
    if (running) await this.#deps.runs.cancel(running.workspaceId, running.runId);
  };

  async #send(request: RequestContext, bus: ExecutionEventBus, run: Run, call: HostedCall): Promise<void> {
    const end = await this.#follow(run, request, () => {});
    if (end.type === 'result') {
      bus.publish(AgentEvent.message(replyOf(end.data, request.contextId, '')));
    } else if (end.type === 'left') {
      call.failure = stoppedFailure(run);
    } else {
      call.failure = runFailure(run.id, end);
    }
  }

  async #stream(request: RequestContext, bus: ExecutionEventBus, run: Run): Promise<void> {
    const { taskId, contextId } = request;
    this.#running.set(taskId, { workspaceId: run.workspaceId, runId: run.id });
    try {
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: taskStatus(TaskState.TASK_STATE_WORKING),
          artifacts: [],
          history: [request.userMessage],
          metadata: { svc: { runId: run.id } },
        }),
      );
      await this.#follow(run, request, (event) => bus.publish(event));
    } finally {
      this.#running.delete(taskId);
    }
  }

  /** Follows the run to its terminal event, handing the task's events to `publish`. */
  async #follow(
    run: Run,
    request: RequestContext,
    publish: (event: AgentExecutionEvent) => void,
  ): Promise<RunEnd> {
    const events = runTaskEvents(
      { runId: run.id, taskId: request.taskId, contextId: request.contextId },
      this.#deps.hostedAgents.follow(run.id, this.#deps.shutdown),
    );
    try {
      for (let next = await events.next(); ; next = await events.next()) {
        if (next.done) return next.value;
        publish(next.value);
      }
    } catch (error) {
      if (!this.#deps.shutdown.aborted) {
        runLogger(this.#deps.logger, run).error({ err: error }, 'following a hosted agent run failed');
      }
    }
    return { type: 'left' };
  }
}

/**
 * The run's own metadata: which A2A message it answers and, streamed, in which task (a sent message's
 * task id is never shown to the peer); values metadata cannot hold (too long, or with U+0000) are left out.
 */
function runMetadata(request: RequestContext, streamed: boolean): Record<string, string> {
  const entries = [
    ['a2a.messageId', request.userMessage.messageId],
    ...(streamed ? [['a2a.taskId', request.taskId]] : []),
  ].filter(
    ([, value]) =>
      value !== undefined &&
      value !== '' &&
      value.length <= METADATA_VALUE_MAX_CHARS &&
      !value.includes('\u0000'),
  );
  return Object.fromEntries(entries) as Record<string, string>;
}

/** The reply could not be awaited (the service is stopping, or the event log could not be read). */
function stoppedFailure(run: Run) {
  return new LegacyA2AError(
    JSON_RPC_CODES.internalError,
    `the reply of run ${run.id} could not be awaited; the run goes on (read it on the runs API)`,
    { error: 'unavailable', runId: run.id },
  );
}
