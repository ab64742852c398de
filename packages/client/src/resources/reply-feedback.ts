import type { RequestOptions } from '../http-transport.ts';
import type { FeedbackList } from '../types.ts';
import type { WorkspaceContext } from './workspace-context.ts';

/** `GET {ws}/reply-feedback`: the workspace's run verdicts, most recent first. */
export class ReplyFeedbackResource {
  readonly #context: WorkspaceContext;

  constructor(context: WorkspaceContext) {
    this.#context = context;
  }

  list(query: { limit?: number; offset?: number } = {}, options: RequestOptions = {}): Promise<FeedbackList> {
    return this.#context.transport.json({
      method: 'GET',
      path: `${this.#context.workspacePath}/reply-feedback`,
      query: { limit: query.limit, offset: query.offset },
      ...options,
    });
  }
}
