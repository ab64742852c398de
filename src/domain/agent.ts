import type { OutputSchemaSetting } from './run-controls.ts';
import type { ToolRef } from './tool-ref.ts';
import type { ReasoningLevelInput } from './usage.ts';

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
  /** What the agent does, for MCP clients and A2A cards (at most 1,000 characters). */
  description: string | null;
  /** The default `outputSchema` of the agent's runs; a run's own wins. */
  outputSchema: OutputSchemaSetting | null;
  createdAt: string;
  updatedAt: string;
}
