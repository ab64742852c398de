/** A tool ref as declared in an agent spec; its kinds and rules are in `tool-ref.ts`. */
export type ToolRef = { kind: string } & Record<string, unknown>;

import type { ReasoningLevelInput } from './usage.ts';

export type { ReasoningLevelInput };

/** A persisted workspace agent, run with `agentId`. */
export interface Agent {
  id: string;
  workspaceId: string;
  slug: string;
  name: string;
  systemPrompt: string;
  /** Model in any `modelId` form; null means the workspace default model. */
  modelId: string | null;
  useWorkspaceDefaultModel: boolean;
  reasoningLevel: ReasoningLevelInput | null;
  tools: ToolRef[];
  /** System agents are internal: an API key with an empty allowlist may not run them. */
  isSystem: boolean;
  createdAt: string;
  updatedAt: string;
}
