import type { RequestOptions } from '../http-transport.ts';
import type { ModelList } from '../types.ts';
import type { WorkspaceContext } from './workspace-context.ts';

/** `GET {ws}/models`: the workspace's model catalog. */
export class ModelsResource {
  readonly #context: WorkspaceContext;

  constructor(context: WorkspaceContext) {
    this.#context = context;
  }

  list(options: RequestOptions = {}): Promise<ModelList> {
    return this.#context.transport.json({
      method: 'GET',
      path: `${this.#context.workspacePath}/models`,
      ...options,
    });
  }
}
