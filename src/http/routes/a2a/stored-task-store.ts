import { Task, TaskState, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import type { A2aTaskStore } from '../../../engine/ports.ts';
import { hostedCallOf } from './hosted-call.ts';

export interface StoredTaskStoreOptions {
  tasks: A2aTaskStore;
  /** A task is forgotten this long after its last change. */
  ttlMs: number;
  /** A task whose state did not change is written at most this often (its artifacts grow per text delta). */
  artifactWriteIntervalMs: number;
  logger: { error(fields: object, message: string): void };
}

/** A task this process is writing: the latest copy, and the writes of it in order. */
interface WrittenTask {
  task: Task;
  key: TaskKey;
  persistedState: TaskState | undefined;
  writes: Promise<void>;
  timer: NodeJS.Timeout | undefined;
  savedAt: number;
}

interface TaskKey {
  workspaceId: string;
  agentId: string;
  taskId: string;
}

const TERMINAL_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

/** A task state no message or run changes any more. */
export function isTerminalTaskState(state: TaskState | undefined): boolean {
  return state !== undefined && TERMINAL_STATES.has(state);
}

/** How often stale rows are deleted, at most. */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * The SDK's tasks of streamed messages, kept in storage so every API replica reads them (`GetTask`,
 * `CancelTask`, `SubscribeToTask`), scoped to the (workspace, agent) of the call. The replica serving
 * a stream keeps its tasks in memory too, as the SDK reads a task back at each event: a change of
 * state is written at once, a task whose artifacts only grew at most every `artifactWriteIntervalMs`
 * (and at its next change of state), so a text delta costs no write. Writes of one task are applied
 * in order. Tasks last changed more than `ttlMs` ago are forgotten.
 */
export class StoredTaskStore implements TaskStore {
  readonly #options: StoredTaskStoreOptions;
  /** Tasks this process writes and that are not yet terminal, by storage key. */
  readonly #written = new Map<string, WrittenTask>();
  #sweptAt = 0;

  constructor(options: StoredTaskStoreOptions) {
    this.#options = options;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const key = keyOf(task.id, context);
    const id = idOf(key);
    const now = Date.now();
    this.#forgetStale(now);
    const entry: WrittenTask = this.#written.get(id) ?? {
      task,
      key,
      persistedState: undefined,
      writes: Promise.resolve(),
      timer: undefined,
      savedAt: now,
    };
    entry.task = Task.fromJSON(Task.toJSON(task));
    entry.savedAt = now;
    this.#written.set(id, entry);
    const state = task.status?.state;
    if (entry.persistedState !== state || isTerminalTaskState(state)) {
      clearTimeout(entry.timer);
      entry.timer = undefined;
      entry.persistedState = state;
      await this.#write(entry);
      if (isTerminalTaskState(state) && this.#written.get(id) === entry) this.#written.delete(id);
    } else {
      entry.timer ??= setTimeout(() => {
        entry.timer = undefined;
        this.#write(entry).catch(() => {});
      }, this.#options.artifactWriteIntervalMs).unref();
    }
    this.#sweep(now);
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const key = keyOf(taskId, context);
    const written = this.#written.get(idOf(key));
    if (written) return Task.fromJSON(Task.toJSON(written.task));
    const since = new Date(Date.now() - this.#options.ttlMs).toISOString();
    const stored = await this.#options.tasks.find(key.workspaceId, key.agentId, key.taskId, since);
    return stored && Task.fromJSON(stored.task);
  }

  /** `ListTasks` is not offered (the hosted endpoint's methods are those of extensions §10). */
  async list(_params: ListTasksRequest, _context: ServerCallContext): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError('ListTasks is not supported by this endpoint');
  }

  /** Queues a write of the task's latest copy after the writes before it. */
  #write(entry: WrittenTask): Promise<void> {
    const write = entry.writes.then(async () => {
      const task = entry.task;
      try {
        await this.#options.tasks.save({
          ...entry.key,
          contextId: task.contextId,
          runId: runIdOf(task),
          task: Task.toJSON(task) as Record<string, unknown>,
          updatedAt: new Date().toISOString(),
        });
      } catch (error) {
        this.#options.logger.error({ err: error, taskId: task.id }, 'storing an A2A task failed');
        throw error;
      }
    });
    entry.writes = write.catch(() => {});
    return write;
  }

  /** Drops tasks this process stopped writing long ago (a stream whose run it could not follow to the end). */
  #forgetStale(now: number): void {
    for (const [id, entry] of this.#written) {
      if (entry.savedAt > now - this.#options.ttlMs) continue;
      clearTimeout(entry.timer);
      this.#written.delete(id);
    }
  }

  #sweep(now: number): void {
    if (now - this.#sweptAt < SWEEP_INTERVAL_MS) return;
    this.#sweptAt = now;
    const cutoff = new Date(now - this.#options.ttlMs).toISOString();
    this.#options.tasks.deleteUpdatedBefore(cutoff).catch((error: unknown) => {
      this.#options.logger.error({ err: error }, 'deleting expired A2A tasks failed');
    });
  }
}

function keyOf(taskId: string, context: ServerCallContext): TaskKey {
  const call = hostedCallOf(context);
  return { workspaceId: call.credential.workspaceId, agentId: call.agent.id, taskId };
}

function idOf(key: TaskKey): string {
  return `${key.workspaceId}\n${key.agentId}\n${key.taskId}`;
}

/** The run answering the task: the executor names it in the task's `metadata.svc.runId`. */
export function runIdOf(task: Task): string | undefined {
  const svc = task.metadata?.svc;
  if (typeof svc !== 'object' || svc === null || Array.isArray(svc)) return undefined;
  const runId = (svc as Record<string, unknown>).runId;
  return typeof runId === 'string' ? runId : undefined;
}
