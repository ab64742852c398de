import type { AgentRunsClient } from '../client.ts';
import type { HttpTransport } from '../http-transport.ts';

/** What every resource of the client shares: the transport, the workspace's path and the client. */
export interface WorkspaceContext {
  transport: HttpTransport;
  /** `/api/v1/workspaces/{slug}` */
  workspacePath: string;
  client: AgentRunsClient;
}

/** A path segment from an id, escaped. */
export function segment(id: string): string {
  return encodeURIComponent(id);
}
