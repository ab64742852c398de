import type { Run } from '../../domain/run.ts';
import type { PlanSnapshot, StructuredOutputReport } from '../../domain/run-events.ts';
import { decodeEventData } from '../../domain/stored-events.ts';
import type { RunEventLookup } from '../ports.ts';

/** The terminal events' `structuredOutput` block, with the reply it validated. */
export interface StructuredOutputView extends StructuredOutputReport {
  /** The final reply parsed: only when the run succeeded and the schema was enforced on the reply. */
  value?: unknown;
}

/** Where a run's controls stand, as its snapshot shows them once known. */
export interface RunControlsView {
  /** From the run's terminal `result` or `error` (a cancelled run has none). */
  structuredOutput?: StructuredOutputView;
  /** The latest `task_plan` snapshot of a run that asked for a plan. */
  plan?: PlanSnapshot;
}

/**
 * Read from the event log, the source of truth, rather than kept on the run row: the plan changes
 * in the middle of a run, and the log already holds every version of it.
 */
export async function runControlsView(events: RunEventLookup, run: Run): Promise<RunControlsView> {
  const asksForPlan = run.spec.plan !== undefined && run.spec.plan !== false;
  const [terminal, planned] = await Promise.all([
    run.endedAt === null ? undefined : events.latestOf(run.id, ['result', 'error']),
    asksForPlan ? events.latestOf(run.id, ['task_plan']) : undefined,
  ]);
  const structuredOutput =
    (terminal?.type === 'result' || terminal?.type === 'error') &&
    structuredOutputOf(run, decodeEventData(terminal.type, terminal.dataJson, terminal.seq).structuredOutput);
  return {
    ...(structuredOutput && { structuredOutput }),
    ...(planned && { plan: decodeEventData('task_plan', planned.dataJson, planned.seq).plan }),
  };
}

function structuredOutputOf(
  run: Run,
  report: StructuredOutputReport | undefined,
): StructuredOutputView | undefined {
  if (!report) return undefined;
  if (!(report.schemaEnforced && run.status === 'succeeded' && run.finalText !== null)) return report;
  try {
    return { ...report, value: JSON.parse(run.finalText) };
  } catch {
    return report;
  }
}
