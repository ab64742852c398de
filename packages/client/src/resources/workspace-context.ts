import type { HttpTransport } from '../http-transport.ts';

/** What every resource of the client shares: the transport and the workspace. */
export interface WorkspaceContext {
  transport: HttpTransport;
  /** The workspace slug. */
  workspace: string;
  /** `/api/v1/workspaces/{slug}` */
  workspacePath: string;
}

/** A path segment from an id, escaped. */
export function segment(id: string): string {
  return encodeURIComponent(id);
}
