import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';

export interface ExpiringTaskStoreOptions {
  /** A task is forgotten this long after its last change. */
  ttlMs: number;
  /** Past this many tasks the least recently changed ones are forgotten first. */
  maxTasks: number;
}

/**
 * The SDK's tasks of streamed messages, in this process's memory (a stream lives on one replica),
 * scoped by the caller as the SDK's in-memory store is, but bounded: the SDK's own store keeps every
 * task for ever, which a long-running service cannot. A task's run, its events and its session
 * outlive it in storage.
 */
export class ExpiringTaskStore implements TaskStore {
  readonly #options: ExpiringTaskStoreOptions;
  /** By owner and task id, least recently saved first (a save moves the task to the end). */
  readonly #tasks = new Map<string, { task: Task; owner: string; savedAt: number }>();

  constructor(options: ExpiringTaskStoreOptions) {
    this.#options = options;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const owner = ownerOf(context);
    const key = keyOf(owner, task.id);
    this.#tasks.delete(key);
    this.#tasks.set(key, { task: structuredClone(task), owner, savedAt: Date.now() });
    this.#evict();
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    this.#evict();
    const entry = this.#tasks.get(keyOf(ownerOf(context), taskId));
    return entry && structuredClone(entry.task);
  }

  /** Not reachable over v0.3 JSON-RPC (it has no `tasks/list`); answers the caller's tasks, unpaged. */
  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    this.#evict();
    const owner = ownerOf(context);
    const tasks = [...this.#tasks.values()]
      .filter((entry) => entry.owner === owner)
      .map((entry) => entry.task)
      .filter((task) => !params.contextId || task.contextId === params.contextId)
      .filter((task) => !params.status || task.status?.state === params.status)
      .map((task) => structuredClone(task));
    return { tasks, nextPageToken: '', pageSize: tasks.length, totalSize: tasks.length };
  }

  #evict(): void {
    const oldest = Date.now() - this.#options.ttlMs;
    for (const [key, entry] of this.#tasks) {
      if (entry.savedAt > oldest && this.#tasks.size <= this.#options.maxTasks) break;
      this.#tasks.delete(key);
    }
  }
}

function ownerOf(context: ServerCallContext): string {
  return `${context.tenant ?? ''}\n${context.user?.userName ?? ''}`;
}

function keyOf(owner: string, taskId: string): string {
  return `${owner}\n${taskId}`;
}
