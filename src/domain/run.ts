import type { RunSpec } from './run-spec.ts';
import type { RunTraceContext } from './trace-context.ts';
import type { ModelInfo, TokenUsage } from './usage.ts';

export const RUN_STATUSES = ['queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Why a failed run failed, as its snapshot shows it. */
export interface FailureReason {
  errorClass: string;
  finishReason: string | null;
}

/** What a terminal event records on the run row, in the same transaction as the event. */
export interface RunOutcome {
  status: RunStatus;
  finalText: string | null;
  error: string | null;
  failureReason: FailureReason | null;
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

/** A run as the runs list shows it: no spec, final text or error to read and parse. */
export interface RunSummary {
  id: string;
  status: RunStatus;
  agentId: string | null;
  sessionId: string | null;
  metadata: Record<string, string>;
  tokens: TokenUsage | null;
  turns: number | null;
  model: ModelInfo | null;
  createdAt: string;
  endedAt: string | null;
}

/** Where a page of the runs list ends: the list is ordered by this key, newest first. */
export interface RunListKey {
  createdAt: string;
  id: string;
}

export interface Run {
  id: string;
  workspaceId: string;
  agentId: string | null;
  sessionId: string | null;
  apiKeyId: string | null;
  status: RunStatus;
  spec: RunSpec;
  metadata: Record<string, string>;
  finalText: string | null;
  error: string | null;
  failureReason: FailureReason | null;
  tokens: TokenUsage | null;
  turns: number | null;
  model: ModelInfo | null;
  cancelRequestedAt: string | null;
  /** Null on runs stored before traces were kept with runs. */
  traceContext: RunTraceContext | null;
  createdAt: string;
  updatedAt: string;
  endedAt: string | null;
}
