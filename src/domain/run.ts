import type { ModelInfo, TokenUsage } from './usage.ts';

export const RUN_STATUSES = ['queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

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

/** An event as stored and streamed: `data` serialized once, shared by the log and every SSE subscriber. */
export interface SerializedRunEvent {
  seq: number;
  type: string;
  dataJson: string;
}

/** What a terminal event records on the run row, in the same transaction as the event. */
export interface RunOutcome {
  status: RunStatus;
  finalText: string | null;
  error: string | null;
  failureReason: Record<string, unknown> | null;
  tokens: TokenUsage;
  turns: number;
  model: ModelInfo;
}

/** The part of a run that routes and the tool-result intake decide on, read without the spec. */
export interface RunState {
  id: string;
  status: RunStatus;
  endedAt: string | null;
  cancelRequestedAt: string | null;
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
  tokens: TokenUsage | null;
  turns: number | null;
  model: ModelInfo | null;
  cancelRequestedAt: string | null;
  createdAt: string;
  updatedAt: string;
  endedAt: string | null;
}
