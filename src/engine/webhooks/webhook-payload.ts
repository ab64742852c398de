import type { Run } from '../../domain/run.ts';
import type { ClaimedDelivery } from '../../domain/webhooks.ts';
import type { RunEventLookup, RunStore } from '../ports.ts';
import { runControlsView } from '../lifecycle/run-controls-view.ts';

export interface PayloadSources {
  runs: RunStore;
  events: RunEventLookup;
}

/**
 * The body of a delivery (extensions §7): `{ type, timestamp, data }`, `data` the run as the event
 * found it. Built at the first attempt and fixed then, so every attempt sends the same bytes; a
 * terminal run no longer changes, and a waiting run is announced as `waiting` whatever came since.
 */
export async function webhookPayload(sources: PayloadSources, delivery: ClaimedDelivery): Promise<string> {
  const run = await sources.runs.findById(delivery.workspaceId, delivery.runId);
  const waiting = delivery.event === 'run.waiting';
  const data = run
    ? await runData(sources.events, run, delivery.workspaceSlug, waiting)
    : { runId: delivery.runId, workspace: delivery.workspaceSlug };
  return JSON.stringify({ type: delivery.event, timestamp: delivery.createdAt, data });
}

async function runData(events: RunEventLookup, run: Run, workspace: string, waiting: boolean) {
  const structuredOutput = waiting ? undefined : (await runControlsView(events, run)).structuredOutput;
  return {
    runId: run.id,
    workspace,
    agentId: run.agentId,
    sessionId: run.sessionId,
    status: waiting ? 'waiting' : run.status,
    text: waiting ? null : run.finalText,
    structuredOutput: structuredOutput?.value ?? null,
    error: waiting ? null : runError(run),
    tokens: waiting ? null : run.tokens,
    turns: waiting ? null : run.turns,
    model: waiting ? null : run.model,
    metadata: run.metadata,
  };
}

function runError(run: Run): { errorClass: string; message: string } | null {
  if (run.status !== 'failed') return null;
  return { errorClass: run.failureReason?.errorClass ?? 'internal', message: run.error ?? '' };
}
