import { TaskState, type Message } from '@a2a-js/sdk';
import { LegacyA2AError } from '@a2a-js/sdk/compat/v0_3/server';
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import type { FastifyBaseLogger } from 'fastify';
import type { Run } from '../../../domain/run.ts';
import type { CancelledData, ErrorData, ResultData } from '../../../domain/run-events.ts';
import type { HostedAgents } from '../../../engine/lifecycle/hosted-agents.ts';
import type { RunService } from '../../../engine/lifecycle/run-service.ts';
import { runLogger } from '../../../engine/lifecycle/run-logger.ts';
import { METADATA_VALUE_MAX_CHARS } from '../../schemas/limits.ts';
import { agentMessage, messageText, taskStatus, textPart, usageMetadata } from './agent-messages.ts';
import { hostedCallOf, type HostedCall } from './hosted-call.ts';
import { JSON_RPC_CODES, runFailure, runFailureData, startFailure } from './json-rpc-errors.ts';

export interface HostedAgentExecutorDeps {
  hostedAgents: HostedAgents;
  runs: RunService;
  /** Aborted when the service stops: followers of runs let go (the runs go on). */
  shutdown: AbortSignal;
  logger: FastifyBaseLogger;
}

/** How a followed run ended, as far as this call saw it. */
type RunEnd =
  | { type: 'result'; data: ResultData }
  | { type: 'error'; data: ErrorData }
  | { type: 'cancelled'; data: CancelledData }
  | { type: 'left' };

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
    const end = await this.#follow(run, () => {});
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
      let turn = 0;
      let chunks = 0;
      const end = await this.#follow(run, (event) => {
        if (event.type === 'assistant_message') {
          turn++;
          chunks = 0;
          return;
        }
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            // One artifact per model turn: the last one is the reply, earlier ones led to tool calls.
            artifact: {
              artifactId: `turn-${turn}`,
              name: 'reply',
              description: '',
              parts: [textPart(event.text)],
              metadata: undefined,
              extensions: [],
            },
            append: chunks++ > 0,
            lastChunk: false,
            metadata: undefined,
          }),
        );
      });
      if (end.type === 'left') return;
      const status =
        end.type === 'result'
          ? taskStatus(TaskState.TASK_STATE_COMPLETED, replyOf(end.data, contextId, taskId))
          : taskStatus(
              end.type === 'error' ? TaskState.TASK_STATE_FAILED : TaskState.TASK_STATE_CANCELED,
              endMessage(run, end, contextId, taskId),
            );
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status,
          metadata: end.type === 'result' ? undefined : runFailureData(run.id, end),
        }),
      );
    } finally {
      this.#running.delete(taskId);
    }
  }

  /** Follows the run to its terminal event, handing text deltas and turn ends to `onTurnEvent`. */
  async #follow(
    run: Run,
    onTurnEvent: (event: { type: 'assistant_delta'; text: string } | { type: 'assistant_message' }) => void,
  ): Promise<RunEnd> {
    try {
      for await (const event of this.#deps.hostedAgents.follow(run.id, this.#deps.shutdown)) {
        switch (event.type) {
          case 'assistant_delta':
            onTurnEvent({ type: 'assistant_delta', text: event.data.text });
            break;
          case 'assistant_message':
            onTurnEvent({ type: 'assistant_message' });
            break;
          case 'result':
            return { type: 'result', data: event.data };
          case 'error':
            return { type: 'error', data: event.data };
          case 'cancelled':
            return { type: 'cancelled', data: event.data };
          default:
            break;
        }
      }
    } catch (error) {
      if (!this.#deps.shutdown.aborted) {
        runLogger(this.#deps.logger, run).error({ err: error }, 'following a hosted agent run failed');
      }
    }
    return { type: 'left' };
  }
}

/** The reply: the run's final text, with `metadata.svc` (the usage triple) when the run has usage data. */
function replyOf(result: ResultData, contextId: string, taskId: string): Message {
  return agentMessage(result.text, contextId, taskId, usageMetadata(result));
}

function endMessage(
  run: Run,
  end: { type: 'error'; data: ErrorData } | { type: 'cancelled'; data: CancelledData },
  contextId: string,
  taskId: string,
): Message {
  const text =
    end.type === 'error' ? `run ${run.id} failed: ${end.data.error}` : `run ${run.id} was cancelled`;
  return agentMessage(text, contextId, taskId, usageMetadata(end.data));
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
