import type { RequestOptions } from '../http-transport.ts';
import type { UserInfo } from '../types.ts';
import type { WorkspaceContext } from './workspace-context.ts';

/** `GET /api/oauth/userinfo`: who the credential acts for, and its workspace slug. */
export class IdentityResource {
  readonly #context: WorkspaceContext;

  constructor(context: WorkspaceContext) {
    this.#context = context;
  }

  userinfo(options: RequestOptions = {}): Promise<UserInfo> {
    return this.#context.transport.json({ method: 'GET', path: '/api/oauth/userinfo', ...options });
  }
}
