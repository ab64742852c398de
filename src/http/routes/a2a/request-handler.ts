import type {
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
} from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import {
  DefaultRequestHandler,
  type AgentExecutor,
  type ExecutionEventBusManager,
  type ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import type { AgentCard } from '@a2a-js/sdk';
import { hostedCallOf } from './hosted-call.ts';
import type { RemoteTasks } from './remote-tasks.ts';
import { isTerminalTaskState } from './stored-task-store.ts';

export interface HostedAgentRequestHandlerDeps {
  card: AgentCard;
  tasks: TaskStore;
  executor: AgentExecutor;
  buses: ExecutionEventBusManager;
  remote: RemoteTasks;
}

/**
 * The SDK's request handler, telling our executor whether a message is sent or streamed, and
 * answering with the call's failure (a message refused before its run, a run that failed or was
 * cancelled) as a JSON-RPC error rather than a result. A streamed message that fails before its run
 * starts fails before the stream opens; once its task is out, the task's final status tells.
 *
 * A task whose stream another replica serves (no event bus here) is read, cancelled and subscribed to
 * through its run (`RemoteTasks`); the SDK's own paths serve the tasks of this replica's streams.
 */
export class HostedAgentRequestHandler extends DefaultRequestHandler {
  readonly #deps: HostedAgentRequestHandlerDeps;

  constructor(deps: HostedAgentRequestHandlerDeps) {
    super(deps.card, deps.tasks, deps.executor, deps.buses);
    this.#deps = deps;
  }

  override async sendMessage(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<Message | Task> {
    const call = hostedCallOf(context);
    call.mode = 'send';
    let result: Message | Task;
    try {
      result = await super.sendMessage(params, context);
    } catch (error) {
      throw call.failure ?? error;
    }
    if (call.failure) throw call.failure;
    return result;
  }

  override async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const call = hostedCallOf(context);
    call.mode = 'stream';
    yield* super.sendMessageStream(params, context);
    if (call.failure) throw call.failure;
  }

  override async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    const task = await super.getTask(params, context);
    if (isTerminalTaskState(task.status?.state) || this.#servedHere(task.id, context)) return task;
    return (await this.#deps.remote.settle(task, context)) ? super.getTask(params, context) : task;
  }

  override async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    if (this.#servedHere(params.id, context)) return super.cancelTask(params, context);
    const task = await this.#deps.tasks.load(params.id, context);
    if (!task) throw new TaskNotFoundError(`Task not found: ${params.id}`);
    const state = task.status?.state;
    if (state === TaskState.TASK_STATE_CANCELED) return task;
    if (isTerminalTaskState(state)) throw new TaskNotCancelableError(`Task not cancelable: ${params.id}`);
    const ended = await this.#deps.remote.cancel(task, context);
    if (ended?.status?.state !== TaskState.TASK_STATE_CANCELED) {
      throw new TaskNotCancelableError(`Task not cancelable: ${params.id} (its run ended first)`);
    }
    return ended;
  }

  override async *resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    if (this.#servedHere(params.id, context)) {
      yield* super.resubscribe(params, context);
      return;
    }
    const task = await this.getTask(
      { tenant: params.tenant, id: params.id, historyLength: undefined },
      context,
    );
    if (isTerminalTaskState(task.status?.state)) {
      throw new UnsupportedOperationError(
        `Task ${task.id} is in a terminal state and cannot be subscribed to: read it with GetTask`,
      );
    }
    yield { payload: { $case: 'task', value: task } };
    yield* this.#deps.remote.follow(task, context);
  }

  override async listTasks(
    _params: ListTasksRequest,
    _context: ServerCallContext,
  ): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError('ListTasks is not supported by this endpoint');
  }

  /** Whether this replica serves the task's stream now (its executor publishes on a bus here). */
  #servedHere(taskId: string, context: ServerCallContext): boolean {
    return this.#deps.buses.getByTaskId(taskId, context) !== undefined;
  }
}
