export interface HttpToolTarget {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers: Record<string, string>;
}

/** A workspace Tool row: an HTTP endpoint the service calls when a run uses `{ kind: "svc", id }`. */
export interface WorkspaceTool {
  id: string;
  workspaceId: string;
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  http: HttpToolTarget;
  createdAt: string;
}
