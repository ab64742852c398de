import type { RunSummary } from '../../domain/run.ts';

/** An entry of `GET {ws}/agent-runs` (extensions §4): `null` where not applicable. */
export function runListEntry(run: RunSummary) {
  return {
    runId: run.id,
    status: run.status,
    agentId: run.agentId,
    sessionId: run.sessionId,
    model: run.model,
    createdAt: run.createdAt,
    endedAt: run.endedAt,
    tokens: run.tokens,
    turns: run.turns,
    metadata: run.metadata,
  };
}
