import type {
  BudgetsSetting,
  LoopDetectionSetting,
  OutputSchemaSetting,
  PlanSetting,
  SupervisorSetting,
  ToolBudgetsSetting,
} from './run-controls.ts';
import type { SessionItem } from './session-history.ts';
import type { ToolRef } from './tool-ref.ts';
import type { ReasoningEffortLabel, ReasoningLevelInput } from './usage.ts';

export type InlineAttachment = { type: 'input_file'; mimeType: string; filename: string; data: string };
export type UrlAttachment = { type: 'input_file_url'; url: string; mimeType?: string; filename?: string };
export type Attachment = InlineAttachment | UrlAttachment;

export interface InputMessage {
  role: 'user' | 'assistant' | 'system';
  content: string;
  attachments?: Attachment[];
}

/** The validated body of run creation (agent spec plus prompt or messages), as the HTTP edge hands it over. */
export interface RunRequest {
  name?: string;
  agentId?: string;
  systemPrompt?: string;
  modelId?: string;
  reasoningLevel?: ReasoningLevelInput;
  tools?: ToolRef[];
  budgets?: BudgetsSetting;
  outputSchema?: OutputSchemaSetting;
  loopDetection?: LoopDetectionSetting;
  toolBudgets?: ToolBudgetsSetting;
  supervisor?: SupervisorSetting;
  plan?: PlanSetting;
  metadata?: Record<string, string>;
  prompt?: string;
  messages?: InputMessage[];
  localToolTimeoutMs?: number;
}

/** The model a run was resolved to at creation; the worker resolves `ref` again to reach it. */
export interface RunModel {
  /** `platform:<offeringId>` or `provider:<id>:<vendorModelId>`. */
  ref: string;
  id: string;
  provider: string;
  vendorModelId: string;
}

/**
 * What a run executes, stored with it: the request as sent (for observability)
 * plus what creation resolved (the effective prompt, model, reasoning level and tools).
 */
export interface RunSpec extends RunRequest {
  effective: {
    systemPrompt: string;
    model: RunModel;
    /** 0-100, or null when neither the request nor the agent asked for a level. */
    reasoningLevel: number | null;
    /**
     * `model.reasoningEffort` on terminal events: null when no level was asked for or the model has no
     * reasoning control (omitted then). Absent on runs stored before it: derived from the level.
     */
    reasoningEffort?: ReasoningEffortLabel | null;
    tools: ToolRef[];
    localToolTimeoutMs: number;
    /**
     * Session-scoped runs: the session's conversation when the run was created, replayed before the
     * input, as a reference (its first `items` items; the history only grows).
     */
    sessionHistory?: SessionHistoryRef;
    /** Runs stored before the reference: the history copied into the spec. */
    history?: SessionItem[];
  };
}

/**
 * The first `items` items of a session's stored conversation (messages and retained tool pairs);
 * without `items`, all it holds when the run starts (a run that waited for its busy session: it
 * holds the session from then on, so nothing else changes the history under it).
 */
export interface SessionHistoryRef {
  sessionId: string;
  items?: number;
}

export const DEFAULT_LOCAL_TOOL_TIMEOUT_MS = 5 * 60 * 1000;
