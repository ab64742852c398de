export const RUN_STATUSES = ['queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export function isTerminalStatus(status: RunStatus): boolean {
  return status === 'succeeded' || status === 'failed' || status === 'cancelled';
}

export const TERMINAL_EVENT_TYPES = ['result', 'error', 'cancelled'] as const;

export function isTerminalEventType(type: string): boolean {
  return (TERMINAL_EVENT_TYPES as readonly string[]).includes(type);
}

/** One entry of a run's event log; `seq` strictly increases per run. */
export interface RunEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

export interface Run {
  id: string;
  workspaceId: string;
  agentId: string | null;
  sessionId: string | null;
  apiKeyId: string | null;
  status: RunStatus;
  spec: Record<string, unknown>;
  metadata: Record<string, string>;
  finalText: string | null;
  error: string | null;
  failureReason: Record<string, unknown> | null;
  tokens: Record<string, number> | null;
  turns: number | null;
  model: Record<string, unknown> | null;
  lastSeq: number;
  createdAt: string;
  updatedAt: string;
  endedAt: string | null;
}
