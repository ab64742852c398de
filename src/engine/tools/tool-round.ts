import type { ToolModelMessage } from 'ai';
import { isJsonObject } from '../../domain/json-object.ts';
import type { RunEvent } from '../../domain/run-events.ts';
import type { RetainedToolPair } from '../../domain/session-history.ts';
import { isServerToolKind } from '../../domain/tool-ref.ts';
import type { RunTools, SchemaValidator, ToolCallRequest } from '../ports.ts';
import type { ControlPipeline } from '../loop/control-pipeline.ts';
import type { RoundSummary, ToolOutput } from '../loop/run-control.ts';
import type {
  BatchOutcome,
  ExecutableCall,
  ExecutableCallOf,
  ExecutorFamily,
  RoundContext,
  RunParked,
  ToolExecutors,
} from './tool-executor.ts';
import { inputInvalidOutput, unknownToolOutput } from './tool-result-output.ts';

/** A call of a round, as decided before any call executes (plain data: it is kept with the checkpoint). */
export type ScheduledCall =
  | { call: ToolCallRequest; execute: { family: ExecutorFamily; args: Record<string, unknown> } }
  | { call: ToolCallRequest; answer: { output: ToolOutput; intercepted: boolean; event?: RunEvent } };

export interface RoundSchedule {
  turn: number;
  calls: ScheduledCall[];
}

export interface RoundTools {
  declared: RunTools;
  pipeline: ControlPipeline;
  validator: SchemaValidator;
  /** Host tools the controls offered on the turn that made the calls. */
  offeredHostTools: readonly string[];
}

/**
 * Decides each call of a model turn before any executes: a call naming no
 * tool and one whose arguments break the tool's input schema are answered at
 * once with a result the model can recover from; a control may intercept a
 * call with a synthetic result; every other call goes to its executor family.
 */
export function scheduleRound(
  turn: number,
  calls: readonly ToolCallRequest[],
  tools: RoundTools,
): RoundSchedule {
  const planned = calls.map((call): ScheduledCall => {
    const tool = toolFor(call.name, tools);
    if (!tool) {
      const available = [...tools.declared.keys(), ...tools.offeredHostTools];
      return { call, answer: { output: unknownToolOutput(call.name, available), intercepted: false } };
    }
    const intercepted = tools.pipeline.beforeToolCall({ turn, call, round: calls, tool });
    if (intercepted) return { call, answer: { ...intercepted, intercepted: true } };
    const args = isJsonObject(call.input) ? call.input : undefined;
    const validation = args
      ? tools.validator.validate(tool.inputSchema, args)
      : { valid: false as const, violations: [{ path: '/', message: 'must be a JSON object' }] };
    if (!validation.valid) {
      return {
        call,
        answer: { output: inputInvalidOutput(call.name, validation.violations), intercepted: false },
      };
    }
    return { call, execute: { family: familyOf(tool), args: args ?? {} } };
  });
  return { turn, calls: planned };
}

function toolFor(name: string, tools: RoundTools) {
  return (
    tools.declared.get(name) ??
    (tools.offeredHostTools.includes(name) ? tools.pipeline.hostTool(name) : undefined)
  );
}

function familyOf(tool: NonNullable<ReturnType<typeof toolFor>>): ExecutorFamily {
  if (!('kind' in tool)) return 'host';
  return isServerToolKind(tool.kind) ? 'server' : 'client';
}

export type RoundOutcome =
  | {
      kind: 'answered';
      message: ToolModelMessage;
      retained: RetainedToolPair[];
      summary: RoundSummary['calls'];
    }
  | { kind: 'timed_out'; call: { toolUseId: string; name: string }; timeoutMs: number }
  | RunParked;

export interface RoundRun extends RoundContext {
  tools: RoundTools;
  executors: ToolExecutors;
}

/**
 * Runs a planned round: the announcements of intercepted calls first, then the
 * executable calls in model-emit order, one batch at a time (consecutive
 * read-only calls of one family form a batch); returns the tool message the
 * model gets next, with every call's result in emit order.
 */
export async function runRound(plan: RoundSchedule, run: RoundRun): Promise<RoundOutcome> {
  const outputs = new Map<string, ToolOutput>();
  const executable: ExecutableCall[] = [];
  for (const planned of plan.calls) {
    if ('answer' in planned) {
      outputs.set(planned.call.id, planned.answer.output);
      if (planned.answer.event) run.emit(planned.answer.event);
    } else {
      executable.push(executableCall(planned.call, planned.execute, run.tools));
    }
  }

  const retained: RetainedToolPair[] = [];
  for (const batch of batchesOf(executable)) {
    const startedBefore = batch.calls.some((entry) => run.logged?.published.has(entry.call.id));
    if (run.cancel.aborted && !startedBefore) throw run.cancel.reason;
    const outcome = await executeBatch(run.executors, batch, run);
    if (outcome.kind !== 'done') return outcome;
    for (const result of outcome.results) {
      outputs.set(result.toolUseId, result.output);
      if (result.retained) retained.push(result.retained);
    }
  }

  const summary = plan.calls.map((planned) => ({
    call: planned.call,
    intercepted: 'answer' in planned && planned.answer.intercepted,
    output: outputs.get(planned.call.id) ?? NO_RESULT,
  }));
  return {
    kind: 'answered',
    retained,
    summary,
    message: {
      role: 'tool',
      content: summary.map(({ call, output }) => ({
        type: 'tool-result',
        toolCallId: call.id,
        toolName: call.name,
        output,
      })),
    },
  };
}

const NO_RESULT: ToolOutput = { type: 'error-text', value: 'no result' };

function executableCall(
  call: ToolCallRequest,
  { family, args }: { family: ExecutorFamily; args: Record<string, unknown> },
  tools: RoundTools,
): ExecutableCall {
  if (family === 'host') {
    const tool = tools.pipeline.hostTool(call.name);
    if (tool) return { family, call, tool, args };
  } else {
    const tool = tools.declared.get(call.name);
    if (tool) return { family, call, tool, args };
  }
  throw new Error(`planned call ${call.id} names no ${family} tool of the run`);
}

type Batch =
  | { family: 'client'; calls: ExecutableCallOf<'client'>[] }
  | { family: 'server'; calls: ExecutableCallOf<'server'>[] }
  | { family: 'host'; calls: ExecutableCallOf<'host'>[] };

/** Consecutive read-only calls of one family form a batch; every other call is a batch of its own. */
function batchesOf(calls: readonly ExecutableCall[]): Batch[] {
  const batches: Batch[] = [];
  for (const entry of calls) {
    const last = batches.at(-1);
    if (last && isReadOnly(entry) && last.calls.every(isReadOnly) && joinBatch(last, entry)) continue;
    batches.push(newBatch(entry));
  }
  return batches;
}

function isReadOnly(entry: ExecutableCall): boolean {
  return entry.family !== 'host' && entry.tool.readOnly;
}

function newBatch(entry: ExecutableCall): Batch {
  switch (entry.family) {
    case 'client':
      return { family: 'client', calls: [entry] };
    case 'server':
      return { family: 'server', calls: [entry] };
    case 'host':
      return { family: 'host', calls: [entry] };
  }
}

function joinBatch(batch: Batch, entry: ExecutableCall): boolean {
  if (batch.family === 'client' && entry.family === 'client') batch.calls.push(entry);
  else if (batch.family === 'server' && entry.family === 'server') batch.calls.push(entry);
  else return false;
  return true;
}

function executeBatch(executors: ToolExecutors, batch: Batch, round: RoundContext): Promise<BatchOutcome> {
  switch (batch.family) {
    case 'client':
      return executors.client.execute(batch.calls, round);
    case 'host':
      return executors.host.execute(batch.calls, round);
    case 'server':
      return executors.server.execute(batch.calls, round);
  }
}
