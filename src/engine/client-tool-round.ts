import type { ToolModelMessage, ToolResultPart } from 'ai';
import type { RetainedToolPair } from '../domain/session.ts';
import type { ClientToolResult, ToolCallRecord } from '../domain/tool-call.ts';
import { retainedText } from './session-turns.ts';
import { isJsonObject, type ClientTool } from '../tools/client-tool.ts';
import type { JsonSchemaValidator } from '../tools/json-schema-validator.ts';
import type { RunTools } from '../tools/run-tools.ts';
import type { ToolCallRepository } from '../storage/repositories/tool-call-repository.ts';
import type { ToolCallRequest } from './model-turn.ts';
import type { RunSignals } from './ports.ts';
import type { RunEmitter } from './run-emitter.ts';
import { clientResultOutput, inputInvalidOutput, unknownToolOutput } from './tool-result-output.ts';
import { waitForToolResults } from './tool-result-waiter.ts';

export interface ClientToolRoundDeps {
  toolCalls: ToolCallRepository;
  signals: RunSignals;
  validator: JsonSchemaValidator;
}

export interface ClientToolRound {
  runId: string;
  tools: RunTools;
  emitter: RunEmitter;
  timeoutMs: number;
  /** Aborts the wait only when the process stops; a cancelled run still waits for its pending calls. */
  stop: AbortSignal;
  /** Aborted on cancel: calls not yet published are not published (the run stops between turns). */
  cancel: AbortSignal;
  /** Set when a restarted worker resumes this round: what the log already shows of it. */
  resumed?: ResumedRound;
}

export interface ResumedRound {
  /** Calls whose `local_tool_call` is already in the log: never published again. */
  published: ReadonlySet<string>;
  /** Answers whose `local_tool_result_in` is already in the log. */
  echoed: ReadonlySet<string>;
}

export type ClientToolRoundOutcome =
  | { kind: 'answered'; message: ToolModelMessage; retained: RetainedToolPair[] }
  | { kind: 'timed_out'; call: { toolUseId: string; name: string } };

interface PlannedCall {
  call: ToolCallRequest;
  tool: ClientTool;
  args: Record<string, unknown>;
}

/**
 * One round of tool calls from a model turn. Unknown tools and arguments that
 * break the input schema are answered at once with a structured result the
 * model can recover from (no `local_tool_call`). Client calls are stored as
 * pending, published, and awaited: consecutive `readOnly` calls as one batch
 * answered in any order, every other call on its own, in model-emit order.
 */
export async function runClientToolRound(
  deps: ClientToolRoundDeps,
  round: ClientToolRound,
  calls: readonly ToolCallRequest[],
): Promise<ClientToolRoundOutcome> {
  const outputs = new Map<string, ToolResultPart['output']>();
  const planned: PlannedCall[] = [];
  for (const call of calls) {
    const tool = round.tools.get(call.name);
    if (!tool) {
      outputs.set(call.id, unknownToolOutput(call.name, [...round.tools.keys()]));
      continue;
    }
    const args = isJsonObject(call.input) ? call.input : undefined;
    const validation = args
      ? deps.validator.validate(tool.inputSchema, args)
      : { valid: false as const, violations: [{ path: '/', message: 'must be a JSON object' }] };
    if (!validation.valid) {
      outputs.set(call.id, inputInvalidOutput(call.name, validation.violations));
      continue;
    }
    planned.push({ call, tool, args: args ?? {} });
  }

  const retained: RetainedToolPair[] = [];
  for (const batch of batches(planned)) {
    const published = batch.some((entry) => round.resumed?.published.has(entry.call.id));
    if (round.cancel.aborted && !published) throw round.cancel.reason;
    const answered = await awaitBatch(deps, round, batch);
    if ('timedOut' in answered) {
      const { call } = answered.timedOut;
      return { kind: 'timed_out', call: { toolUseId: call.id, name: call.name } };
    }
    for (const record of answered) {
      const entry = batch.find((candidate) => candidate.call.id === record.toolUseId);
      if (!record.result || !entry) continue;
      outputs.set(record.toolUseId, clientResultOutput(entry.tool, record.result, deps.validator));
      if (entry.tool.retain) retained.push(retainedPair(entry, record.result));
    }
  }

  return {
    kind: 'answered',
    retained,
    message: {
      role: 'tool',
      content: calls.map((call) => ({
        type: 'tool-result',
        toolCallId: call.id,
        toolName: call.name,
        output: outputs.get(call.id) ?? { type: 'error-text', value: 'no result' },
      })),
    },
  };
}

function retainedPair(entry: PlannedCall, answer: ClientToolResult): RetainedToolPair {
  const isError = 'error' in answer;
  return {
    toolUseId: entry.call.id,
    name: entry.call.name,
    args: entry.args,
    result: retainedText(isError ? answer.error : answer.result),
    isError,
  };
}

/** Consecutive read-only calls form one batch; every mutating call is a batch of its own. */
function batches(planned: readonly PlannedCall[]): PlannedCall[][] {
  const result: PlannedCall[][] = [];
  for (const entry of planned) {
    const last = result.at(-1);
    if (entry.tool.readOnly && last?.[0]?.tool.readOnly) last.push(entry);
    else result.push([entry]);
  }
  return result;
}

async function awaitBatch(
  deps: ClientToolRoundDeps,
  round: ClientToolRound,
  batch: readonly PlannedCall[],
): Promise<ToolCallRecord[] | { timedOut: PlannedCall }> {
  const ids = batch.map((entry) => entry.call.id);
  const storedRows = round.resumed ? await deps.toolCalls.find(round.runId, ids) : [];
  const stored = new Set(storedRows.map((row) => row.toolUseId));
  // A resumed batch keeps the deadline its calls got when they were first stored: a takeover does
  // not extend the client's time to answer.
  const deadline =
    Math.min(Date.now(), ...storedRows.map((row) => Date.parse(row.createdAt))) + round.timeoutMs;
  // The rows exist before the events are visible, so an answer can never race ahead of its call.
  await deps.toolCalls.insertPending(
    round.runId,
    batch
      .filter((entry) => !stored.has(entry.call.id))
      .map((entry) => ({ toolUseId: entry.call.id, name: entry.call.name, kind: entry.tool.kind })),
  );
  for (const { call, tool, args } of batch) {
    if (round.resumed?.published.has(call.id)) continue;
    round.emitter.emit('local_tool_call', {
      toolUseId: call.id,
      name: call.name,
      args,
      kind: tool.kind,
      ...tool.callExtras,
    });
  }
  await round.emitter.durable();
  // Each answer is echoed as soon as the wait sees it, not when its whole batch is answered.
  const echoed = new Set(round.resumed?.echoed);
  const answered = await waitForToolResults(deps, round.runId, ids, deadline, round.stop, (records) =>
    echo(round, records, echoed),
  );
  if (answered === 'timeout') {
    await deps.toolCalls.expire(round.runId, ids);
    // Results that landed before the expiry still count, and every accepted result is echoed.
    const final = echo(round, await deps.toolCalls.find(round.runId, ids), echoed);
    const missing = batch.find((entry) => !final.some((record) => record.toolUseId === entry.call.id));
    return missing ? { timedOut: missing } : final;
  }
  return echo(round, answered, echoed);
}

/**
 * `local_tool_result_in` for each answer not in `echoed` yet, in the order the answers arrived
 * (file bytes never go on the stream); returns the answered records in that order.
 */
function echo(round: ClientToolRound, records: ToolCallRecord[], echoed: Set<string>): ToolCallRecord[] {
  const ordered = records
    .filter((record) => record.status === 'answered')
    .sort((a, b) => (a.answeredAt ?? '').localeCompare(b.answeredAt ?? ''));
  for (const record of ordered) {
    const answer = record.result;
    if (!answer || echoed.has(record.toolUseId)) continue;
    echoed.add(record.toolUseId);
    round.emitter.emit('local_tool_result_in', {
      toolUseId: record.toolUseId,
      ...('error' in answer
        ? { output: answer.error, isError: true }
        : {
            output: answer.result,
            ...(answer.files.length > 0 && {
              files: answer.files.map((file) => ({
                filename: file.filename,
                mimeType: file.mimeType,
                sizeBytes: Buffer.byteLength(file.data, 'base64'),
              })),
            }),
          }),
    });
  }
  return ordered;
}
