import { TaskState, type Message } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent } from '@a2a-js/sdk/server';
import type { CancelledData, ErrorData, ResultData } from '../../../domain/run-events.ts';
import type { FollowedRunEvent } from '../../../engine/log/run-event-follower.ts';
import { agentMessage, taskStatus, textPart, usageMetadata } from './agent-messages.ts';
import { runFailureData } from './json-rpc-errors.ts';

/** How a followed run ended, as far as its reader saw it (`left`: the events ended before the run did). */
export type RunEnd =
  | { type: 'result'; data: ResultData }
  | { type: 'error'; data: ErrorData }
  | { type: 'cancelled'; data: CancelledData }
  | { type: 'left' };

/** The task a run answers. */
export interface RunTask {
  runId: string;
  taskId: string;
  contextId: string;
}

/**
 * The translation of a run's event log into the A2A (1.0) events of the task it answers: the
 * reply's text as artifact updates, one artifact per model turn (the last one is the reply, earlier
 * ones led to tool calls), then the final status update carrying the reply message (with
 * `metadata.svc`) or the failure. Fed by the run-event follower that serves SSE (replay, then live),
 * so a reader that starts late, on another replica or after a crash, sees the same events. v0.3
 * peers get these same events, translated by the SDK's v0.3 compatibility layer. Returns how the
 * run ended.
 */
export async function* runTaskEvents(
  task: RunTask,
  events: AsyncIterable<FollowedRunEvent>,
): AsyncGenerator<AgentExecutionEvent, RunEnd, undefined> {
  let turn = 0;
  let chunks = 0;
  for await (const event of events) {
    switch (event.type) {
      case 'assistant_delta':
        yield artifactUpdate(task, turn, event.data.text, chunks++ > 0);
        break;
      case 'assistant_message':
        turn++;
        chunks = 0;
        break;
      case 'result':
      case 'error':
      case 'cancelled': {
        const end = { type: event.type, data: event.data } as Exclude<RunEnd, { type: 'left' }>;
        yield finalStatusUpdate(task, end);
        return end;
      }
      default:
        break;
    }
  }
  return { type: 'left' };
}

/** The reply: the run's final text, with `metadata.svc` (the usage triple) when the run has usage data. */
export function replyOf(result: ResultData, contextId: string, taskId: string): Message {
  return agentMessage(result.text, contextId, taskId, usageMetadata(result));
}

/** The final status update of a run's task, for how the run ended. */
export function finalStatusUpdate(
  task: RunTask,
  end: Exclude<RunEnd, { type: 'left' }>,
): AgentExecutionEvent {
  const { taskId, contextId, runId } = task;
  if (end.type === 'result') {
    return AgentEvent.statusUpdate({
      taskId,
      contextId,
      status: taskStatus(TaskState.TASK_STATE_COMPLETED, replyOf(end.data, contextId, taskId)),
      metadata: undefined,
    });
  }
  const text = end.type === 'error' ? `run ${runId} failed: ${end.data.error}` : `run ${runId} was cancelled`;
  return AgentEvent.statusUpdate({
    taskId,
    contextId,
    status: taskStatus(
      end.type === 'error' ? TaskState.TASK_STATE_FAILED : TaskState.TASK_STATE_CANCELED,
      agentMessage(text, contextId, taskId, usageMetadata(end.data)),
    ),
    metadata: runFailureData(runId, end),
  });
}

function artifactUpdate(task: RunTask, turn: number, text: string, append: boolean): AgentExecutionEvent {
  return AgentEvent.artifactUpdate({
    taskId: task.taskId,
    contextId: task.contextId,
    artifact: {
      artifactId: `turn-${turn}`,
      name: 'reply',
      description: '',
      parts: [textPart(text)],
      metadata: undefined,
      extensions: [],
    },
    append,
    lastChunk: false,
    metadata: undefined,
  });
}
