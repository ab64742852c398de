import type { StreamResponse, Task } from '@a2a-js/sdk';
import { ResultManager, type ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import type { HostedAgents } from '../../../engine/lifecycle/hosted-agents.ts';
import type { RunService } from '../../../engine/lifecycle/run-service.ts';
import { hostedCallOf } from './hosted-call.ts';
import { runTaskEvents } from './run-task-events.ts';
import { runIdOf } from './stored-task-store.ts';

export interface RemoteTasksDeps {
  hostedAgents: HostedAgents;
  runs: RunService;
  tasks: TaskStore;
  /** Aborted when the service stops: followers of runs let go. */
  shutdown: AbortSignal;
}

/**
 * Tasks whose stream this replica does not serve (another replica does, or did before it stopped):
 * their events come from their run's event log, through the same translation the serving replica
 * uses, and their final status, once the run ended, is stored from here too (the same status the
 * serving replica stores, or the only one when it is gone).
 */
export class RemoteTasks {
  readonly #deps: RemoteTasksDeps;
  constructor(deps: RemoteTasksDeps) {
    this.#deps = deps;
  }

  /** The task's events from its run's log, from the first text delta to its final status (stored). */
  async *follow(task: Task, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const runId = runIdOf(task);
    if (runId === undefined) return;
    const events = runTaskEvents(
      { runId, taskId: task.id, contextId: task.contextId },
      this.#deps.hostedAgents.follow(runId, this.#deps.shutdown),
    );
    for await (const event of events) {
      switch (event.kind) {
        case 'statusUpdate':
          await new ResultManager(this.#deps.tasks, context).processEvent(event);
          yield { payload: { $case: 'statusUpdate', value: event.data } };
          break;
        case 'artifactUpdate':
          // The serving replica stores the artifacts; a reader elsewhere only passes them on.
          yield { payload: { $case: 'artifactUpdate', value: event.data } };
          break;
        default:
          break;
      }
    }
  }

  /**
   * Stores the final status of a task whose run ended but which is stored unfinished (its replica
   * stopped before it could): true when it did.
   */
  async settle(task: Task, context: ServerCallContext): Promise<boolean> {
    const runId = runIdOf(task);
    if (runId === undefined) return false;
    const run = await this.#deps.runs.state(hostedCallOf(context).credential.workspaceId, runId);
    if (run.endedAt === null) return false;
    await this.#drain(task, context);
    return true;
  }

  /** Cancels the task's run, waits for its end and answers the task as then stored. */
  async cancel(task: Task, context: ServerCallContext): Promise<Task | undefined> {
    const runId = runIdOf(task);
    if (runId === undefined) return task;
    await this.#deps.runs.cancel(hostedCallOf(context).credential.workspaceId, runId);
    await this.#drain(task, context);
    return this.#deps.tasks.load(task.id, context);
  }

  async #drain(task: Task, context: ServerCallContext): Promise<void> {
    for await (const _event of this.follow(task, context)) {
      // Only the stored final status matters here.
    }
  }
}
