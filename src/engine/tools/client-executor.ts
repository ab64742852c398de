import type { RetainedToolPair } from '../../domain/session-history.ts';
import type { ClientToolResult, ToolCallRecord } from '../../domain/tool-call.ts';
import { isServerToolKind, type ClientToolKind, type ToolKind } from '../../domain/tool-ref.ts';
import type { RunMetrics, SchemaValidator, ToolCallStore } from '../ports.ts';
import { noMetrics } from '../ports/metrics.ts';
import { clientToolSpanOf, noTracing, type RunTracing } from '../ports/tracing.ts';
import { RunCancelled } from '../loop/abort-reasons.ts';
import { retainedText } from '../loop/session-turns.ts';
import { countClientToolCall } from './client-call-metrics.ts';
import type {
  BatchOutcome,
  CallResult,
  ExecutableCallOf,
  RoundContext,
  ToolExecutor,
} from './tool-executor.ts';
import { clientResultOutput } from './tool-result-output.ts';

export interface ClientExecutorDeps {
  toolCalls: ToolCallStore;
  validator: SchemaValidator;
  /** Counts the calls whose wait ends here, unanswered (answered calls are counted by the intake). */
  metrics?: RunMetrics;
  /** Each call's span ends when the run sees its answer or its timeout (none reported when absent). */
  tracing?: RunTracing;
}

/**
 * Client-resolved calls (`local`, `a2a_local`, `mcp_local`): each is stored
 * as pending and published as `local_tool_call`. Until every call of the
 * batch is answered the run parks (it holds no worker while the client
 * works); each answer wakes it, and it echoes what came in and parks again,
 * until the batch is answered or `timeoutMs` passes (counted from when the
 * calls were first stored, so neither parking nor a takeover extends it).
 */
type ClientCall = ExecutableCallOf<'client'>;

export class ClientToolExecutor implements ToolExecutor<'client'> {
  readonly #deps: ClientExecutorDeps;
  readonly #timeoutMs: number;

  constructor(deps: ClientExecutorDeps, timeoutMs: number) {
    this.#deps = deps;
    this.#timeoutMs = timeoutMs;
  }

  async execute(batch: readonly ClientCall[], round: RoundContext): Promise<BatchOutcome> {
    const { toolCalls } = this.#deps;
    const ids = batch.map((entry) => entry.call.id);
    const storedRows = round.logged ? await toolCalls.find(round.runId, ids) : [];
    const stored = new Set(storedRows.map((row) => row.toolUseId));
    const deadline =
      Math.min(Date.now(), ...storedRows.map((row) => Date.parse(row.createdAt))) + this.#timeoutMs;
    // The rows exist before the events are visible, so an answer can never race ahead of its call.
    const inserted = await toolCalls.insertPending(
      round.runId,
      batch
        .filter((entry) => !stored.has(entry.call.id))
        .map((entry) => ({
          toolUseId: entry.call.id,
          name: entry.call.name,
          kind: clientKind(entry.tool.kind),
        })),
      round.emitter.attempt,
    );
    if (!inserted) {
      // A newer attempt owns the run (this worker's lease lapsed): it stores and publishes the calls.
      round.emitter.fencedOutElsewhere();
      round.stop.throwIfAborted();
    }
    for (const { call, tool, args } of batch) {
      if (round.logged?.published.has(call.id)) continue;
      round.emitter.emit('local_tool_call', {
        toolUseId: call.id,
        name: call.name,
        args,
        kind: clientKind(tool.kind),
        ...tool.callExtras,
      });
    }
    await round.emitter.durable();
    // Each answer is echoed as soon as the run sees it, not when its whole batch is answered.
    const echoed = new Set(round.logged?.echoed);
    const ended = endedCallSpans(this.#deps.tracing ?? noTracing, batch);
    const answered = echo(round, await toolCalls.find(round.runId, ids), echoed, ended);
    if (answered.length === ids.length) {
      await toolCalls.endWaiting(round.runId);
      return { kind: 'done', results: this.#results(batch, answered) };
    }
    if (Date.now() < deadline) {
      const waitingFor = ids.filter((id) => !answered.some((record) => record.toolUseId === id));
      return { kind: 'parked', wakeAt: deadline, waitingFor };
    }
    const unanswered = await toolCalls.expire(round.runId, ids);
    await toolCalls.endWaiting(round.runId);
    // A cancelled run waits for its calls too: a call still unanswered then ends with the run.
    const outcome = round.cancel.reason instanceof RunCancelled ? 'cancelled' : 'timeout';
    const endedAt = new Date().toISOString();
    for (const call of unanswered)
      countClientToolCall(this.#deps.metrics ?? noMetrics, call, outcome, endedAt);
    // Results that landed before the expiry still count, and every accepted result is echoed.
    const expired = await toolCalls.find(round.runId, ids);
    const final = echo(round, expired, echoed, ended);
    const missing = batch.find((entry) => !final.some((record) => record.toolUseId === entry.call.id));
    if (missing) {
      for (const record of expired) if (record.status === 'timed_out') ended(record);
      return {
        kind: 'timed_out',
        call: { toolUseId: missing.call.id, name: missing.call.name },
        timeoutMs: this.#timeoutMs,
      };
    }
    return { kind: 'done', results: this.#results(batch, final) };
  }

  #results(batch: readonly ClientCall[], records: readonly ToolCallRecord[]): CallResult[] {
    const results: CallResult[] = [];
    for (const record of records) {
      const entry = batch.find((candidate) => candidate.call.id === record.toolUseId);
      if (!record.result || !entry) continue;
      const { tool } = entry;
      results.push({
        toolUseId: record.toolUseId,
        output: clientResultOutput(tool, record.result, this.#deps.validator),
        ...(tool.retain && { retained: retainedPair(entry, record.result) }),
      });
    }
    return results;
  }
}

/** Reports a call's span once the run sees its answer or its timeout. */
function endedCallSpans(tracing: RunTracing, batch: readonly ClientCall[]): (record: ToolCallRecord) => void {
  return (record) => {
    const args = batch.find((entry) => entry.call.id === record.toolUseId)?.args;
    tracing.clientToolEnded(clientToolSpanOf(record, args, new Date().toISOString()));
  };
}

function clientKind(kind: ToolKind): ClientToolKind {
  if (isServerToolKind(kind)) throw new Error(`a ${kind} tool is not a client tool`);
  return kind;
}

function retainedPair(entry: ClientCall, answer: ClientToolResult): RetainedToolPair {
  const isError = 'error' in answer;
  return {
    toolUseId: entry.call.id,
    name: entry.call.name,
    args: entry.args,
    result: retainedText(isError ? answer.error : answer.result),
    isError,
  };
}

/**
 * `local_tool_result_in` for each answer not in `echoed` yet, in the order the answers arrived
 * (file bytes never go on the stream), its call's span `ended`; returns the answered records in that order.
 */
function echo(
  round: RoundContext,
  records: ToolCallRecord[],
  echoed: Set<string>,
  ended: (record: ToolCallRecord) => void,
): ToolCallRecord[] {
  const ordered = records
    .filter((record) => record.status === 'answered')
    .sort((a, b) => (a.answeredAt ?? '').localeCompare(b.answeredAt ?? ''));
  for (const record of ordered) {
    const answer = record.result;
    if (!answer || echoed.has(record.toolUseId)) continue;
    echoed.add(record.toolUseId);
    ended(record);
    round.emitter.emit(
      'local_tool_result_in',
      'error' in answer
        ? { toolUseId: record.toolUseId, output: answer.error, isError: true }
        : {
            toolUseId: record.toolUseId,
            output: answer.result,
            ...(answer.files.length > 0 && {
              files: answer.files.map((file) => ({
                filename: file.filename,
                mimeType: file.mimeType,
                sizeBytes: Buffer.byteLength(file.data, 'base64'),
              })),
            }),
          },
    );
  }
  return ordered;
}
