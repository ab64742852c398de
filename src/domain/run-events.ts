import type { ClientToolKind } from './tool-ref.ts';
import type { ModelInfo, TokenUsage } from './usage.ts';

/**
 * The run events of the spec's Events section: one payload type per event
 * type. The emitter, the event log, SSE and the replay all speak this union.
 */

/** The usage triple every terminal event carries. */
export interface UsageTriple {
  tokens: TokenUsage;
  turns: number;
  model: ModelInfo;
}

export interface StructuredOutputReport {
  schemaRequested: boolean;
  schemaEnforced: boolean;
  enforcementMechanism: 'native_schema' | 'synthetic_tool' | 'none';
  unconstrainedFallbackOccurred: boolean;
}

export interface ToolCallSummary {
  id: string;
  name: string;
  input: unknown;
}

export interface AssistantMessageData {
  text: string;
  /** 0-based tool-turn index. */
  turn: number;
  finishReason: string | null;
  toolCalls?: ToolCallSummary[];
}

export interface LocalToolCallData {
  toolUseId: string;
  name: string;
  args: Record<string, unknown>;
  kind: ClientToolKind;
  /** `a2a_local`: the card echoed from the spec. */
  agentCard?: Record<string, unknown>;
  /** `mcp_local`: the server label, the tool's name, the spec's serverInfo and the tool's annotations. */
  mcpServer?: string;
  mcpToolName?: string;
  mcpServerInfo?: Record<string, unknown>;
  annotations?: unknown;
}

export interface FileMetadata {
  filename: string;
  mimeType: string;
  sizeBytes: number;
}

export type LocalToolResultInData =
  | { toolUseId: string; output: string; isError: true }
  | { toolUseId: string; output: string; files?: FileMetadata[] };

export interface ToolCallData {
  toolUseId: string;
  name: string;
  input: unknown;
}

export type ToolResultData = { toolUseId: string; name: string } & (
  { ok: boolean; summary: string } | { result: string }
);

export interface StoredFileMetadata extends FileMetadata {
  /** Object-store key, not a public URL. */
  storageKey?: string;
  /** Public HTTPS URL. */
  url?: string;
}

export interface ToolFilesData {
  name: string;
  files: StoredFileMetadata[];
}

export interface LoopDetectedData {
  consecutiveCount: number;
  hardCutoff: boolean;
  tools: string[];
}

export interface ToolBudgetExceededData {
  tool: string;
  maxCalls: number;
  /** 1-based attempt count, always above `maxCalls`. */
  callIndex: number;
}

export interface SupervisorData {
  action: 'on_track' | 'redirect' | 'finalize';
  reason: string;
  redirect?: string;
  llmCalls: number;
  phase?: 'turn_boundary' | 'reasoning';
  model?: { id: string; provider: string; vendorModelId: string };
}

export type PlanStepStatus = 'pending' | 'in_progress' | 'done' | 'blocked' | 'skipped';

export interface PlanSnapshot {
  v: 2;
  planId: string;
  revision: number;
  mode: string;
  brief: string;
  steps: Array<{ id: string; title: string; status: PlanStepStatus }>;
}

export interface TaskPlanData extends Omit<PlanSnapshot, 'v'> {
  v: 2;
  source: string;
  transition: { kind: string; stepId: string | null };
  transitionIndex: number;
  transitionCount: number;
  plan: PlanSnapshot;
}

export type ResultSubtype = 'success' | 'error_local_tool_timeout';

/** A plan-only run's plan, as its `result` carries it. */
export interface ResultPlan {
  brief: string;
  steps: Array<{ title: string; status: PlanStepStatus }>;
}

export interface ResultData extends UsageTriple {
  subtype: ResultSubtype;
  text: string;
  /** The message, on failure subtypes. */
  error?: string;
  /** Plan-only runs. */
  plan?: ResultPlan;
  structuredOutput: StructuredOutputReport;
}

export interface ErrorData extends UsageTriple {
  error: string;
  code: string;
  errorClass?: string;
  finishReason: string | null;
  partialText?: string;
  retryable?: boolean;
  apiStatus?: number;
  apiCode?: string;
  structuredOutput: StructuredOutputReport;
}

export interface CancelledData extends UsageTriple {
  reason?: string;
}

/** Payload per event type. */
export interface RunEventData {
  assistant_delta: { text: string };
  thinking_delta: { text: string };
  assistant_message: AssistantMessageData;
  tool_call: ToolCallData;
  tool_result: ToolResultData;
  tool_files: ToolFilesData;
  local_tool_call: LocalToolCallData;
  local_tool_result_in: LocalToolResultInData;
  loop_detected: LoopDetectedData;
  tool_budget_exceeded: ToolBudgetExceededData;
  supervisor: SupervisorData;
  task_plan: TaskPlanData;
  result: ResultData;
  error: ErrorData;
  cancelled: CancelledData;
}

export type RunEventType = keyof RunEventData;

export type RunEventOf<T extends RunEventType> = { type: T; data: RunEventData[T] };

/** Any run event: `type` discriminates `data`. */
export type RunEvent = { [T in RunEventType]: RunEventOf<T> }[RunEventType];

/**
 * What an event is in a run's life, as a worker taking the run over reads its log:
 * - `delta`: a piece of the model turn being generated (the turn may be regenerated);
 * - `turn`: a model turn that ended;
 * - `tool_call`: a tool call published, identified by its `toolUseId` (never published twice);
 * - `tool_answer`: a client's answer to a call, identified by its `toolUseId`;
 * - `round_event`: another event of a tool round (a result, files, a control's interception),
 *   recognized by its content;
 * - `announcement`: a control's report that may come anywhere, before the first turn or in the
 *   middle of one, recognized by its content;
 * - `terminal`: the run's one last event.
 */
export type EventRole =
  'delta' | 'turn' | 'tool_call' | 'tool_answer' | 'round_event' | 'announcement' | 'terminal';

/** The role of every event type, declared once: an event type without one does not compile. */
export const EVENT_ROLES = {
  assistant_delta: 'delta',
  thinking_delta: 'delta',
  assistant_message: 'turn',
  tool_call: 'tool_call',
  local_tool_call: 'tool_call',
  local_tool_result_in: 'tool_answer',
  tool_result: 'round_event',
  tool_files: 'round_event',
  loop_detected: 'round_event',
  tool_budget_exceeded: 'round_event',
  supervisor: 'announcement',
  task_plan: 'announcement',
  result: 'terminal',
  error: 'terminal',
  cancelled: 'terminal',
} as const satisfies Record<RunEventType, EventRole>;

/** The event types of one role. */
export type EventTypeOfRole<R extends EventRole> = {
  [T in RunEventType]: (typeof EVENT_ROLES)[T] extends R ? T : never;
}[RunEventType];

/** What each delta streams: the reply's text or the model's thoughts. */
export const DELTA_STREAMS = {
  assistant_delta: 'text',
  thinking_delta: 'thinking',
} as const satisfies Record<EventTypeOfRole<'delta'>, 'text' | 'thinking'>;

export function hasRole<R extends EventRole>(type: RunEventType, role: R): type is EventTypeOfRole<R> {
  return EVENT_ROLES[type] === role;
}

export const TERMINAL_EVENT_TYPES = [
  'result',
  'error',
  'cancelled',
] as const satisfies readonly EventTypeOfRole<'terminal'>[];
export type TerminalEventType = EventTypeOfRole<'terminal'>;
export type TerminalRunEvent = Extract<RunEvent, { type: TerminalEventType }>;

const TERMINAL_TYPES: ReadonlySet<string> = new Set(TERMINAL_EVENT_TYPES);

export function isTerminalEventType(type: string): type is TerminalEventType {
  return TERMINAL_TYPES.has(type);
}

/** An event as stored and streamed: `data` serialized once, shared by the log and every SSE subscriber. */
export interface SerializedRunEvent {
  seq: number;
  type: RunEventType;
  dataJson: string;
}
