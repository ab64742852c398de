import type { RunSpec } from '../../src/domain/run-spec.ts';
import type { NewRun } from '../../src/engine/ports.ts';

/** The spec of a run the storage suites store and read back: nothing executes it. */
export const STORED_RUN_SPEC: RunSpec = {
  prompt: 'hi',
  effective: {
    systemPrompt: 'You are terse.',
    model: { ref: 'platform:off_test', id: 'mock/echo', provider: 'mock', vendorModelId: 'echo' },
    reasoningLevel: null,
    tools: [],
    localToolTimeoutMs: 300_000,
  },
};

/** A new run of `STORED_RUN_SPEC` in the workspace, with no agent, session or API key. */
export function storedRunInput(
  workspaceId: string,
  metadata: Record<string, string> = {},
): Omit<NewRun, 'heldBySession'> {
  return { workspaceId, agentId: null, sessionId: null, apiKeyId: null, spec: STORED_RUN_SPEC, metadata };
}
