import type { StoredFileMetadata } from '../../domain/run-events.ts';
import type {
  FileStore,
  ServerCallOutcome,
  ServerCallRecord,
  ServerCallStore,
  ServerToolFile,
  ServerToolHandler,
  StoredFileContent,
} from '../ports.ts';
import type {
  BatchOutcome,
  CallResult,
  ExecutableCallOf,
  RoundContext,
  ToolExecutor,
} from './tool-executor.ts';
import {
  INTERRUPTED_OUTCOME,
  cancelledOutcome,
  displaySummary,
  modelOutputOf,
  storedFileKeys,
} from './server-call-outcome.ts';

export interface ServerExecutorDeps {
  serverCalls: ServerCallStore;
  files: FileStore;
  /** The handler of each server-resolved tool of the run, by the name the model calls. */
  handlers: ReadonlyMap<string, ServerToolHandler>;
  workspaceId: string;
  agentId: string | null;
}

type ServerCall = ExecutableCallOf<'server'>;

/**
 * Server-resolved calls (MCP, A2A, HTTP, plugins), executed exactly once: each
 * call's row is stored and its `tool_call` made durable before it executes, and
 * its outcome is stored before its `tool_result` goes out. A call the log shows
 * as started is never executed again: a restarted worker takes its recorded
 * outcome, or gives the model an interrupted-outcome-unknown result. The calls
 * of a batch (read-only calls of one turn) run concurrently; cancel and stop
 * abort the ones in flight.
 */
export class ServerToolExecutor implements ToolExecutor<'server'> {
  readonly #deps: ServerExecutorDeps;

  constructor(deps: ServerExecutorDeps) {
    this.#deps = deps;
  }

  async execute(batch: readonly ServerCall[], round: RoundContext): Promise<BatchOutcome> {
    const { serverCalls } = this.#deps;
    const started = batch.filter((entry) => round.logged?.published.has(entry.call.id));
    const records = new Map(
      (
        await serverCalls.find(
          round.runId,
          started.map((entry) => entry.call.id),
        )
      ).map((record) => [record.toolUseId, record]),
    );
    const fresh = batch.filter((entry) => !round.logged?.published.has(entry.call.id));
    await serverCalls.begin(
      round.runId,
      fresh.map(({ call, tool }) => ({ toolUseId: call.id, name: call.name, kind: tool.kind })),
    );
    for (const { call, args } of fresh) {
      round.emitter.emit('tool_call', { toolUseId: call.id, name: call.name, input: args });
    }
    await round.emitter.durable();
    const signal = AbortSignal.any([round.stop, round.cancel]);
    const results = await Promise.all(
      batch.map((entry) =>
        fresh.includes(entry)
          ? this.#execute(entry, round, signal)
          : this.#resume(entry, records.get(entry.call.id), round),
      ),
    );
    return { kind: 'done', results };
  }

  async #execute(entry: ServerCall, round: RoundContext, signal: AbortSignal): Promise<CallResult> {
    const handler = this.#deps.handlers.get(entry.call.name);
    if (!handler) throw new Error(`no server handler for tool ${entry.call.name}`);
    let outcome: ServerCallOutcome;
    const contents = new Map<string, StoredFileContent>();
    try {
      const returned = await handler(entry.args, {
        runId: round.runId,
        workspaceId: this.#deps.workspaceId,
        agentId: this.#deps.agentId,
        toolUseId: entry.call.id,
        signal,
      });
      outcome = {
        ok: returned.ok,
        text: returned.text,
        files: await this.#storeFiles(round.runId, returned.files ?? [], contents),
      };
    } catch (error) {
      // Stopping (shutdown, lost log): the outcome stays unknown and is never guessed or re-run.
      if (round.stop.aborted) throw round.stop.reason;
      outcome = round.cancel.aborted
        ? cancelledOutcome()
        : {
            ok: false,
            text: `the tool failed: ${error instanceof Error ? error.message : String(error)}`,
            files: [],
          };
    }
    await this.#deps.serverCalls.finish(round.runId, entry.call.id, outcome);
    announce(entry, outcome, round);
    return { toolUseId: entry.call.id, output: modelOutputOf(outcome, contents) };
  }

  /** A call an earlier attempt started: its recorded outcome, or interrupted-outcome-unknown. */
  async #resume(
    entry: ServerCall,
    record: ServerCallRecord | undefined,
    round: RoundContext,
  ): Promise<CallResult> {
    let outcome = record?.outcome;
    if (!outcome) {
      outcome = INTERRUPTED_OUTCOME;
      await this.#deps.serverCalls.begin(round.runId, [
        { toolUseId: entry.call.id, name: entry.call.name, kind: entry.tool.kind },
      ]);
      await this.#deps.serverCalls.finish(round.runId, entry.call.id, outcome);
    }
    const contents = new Map<string, StoredFileContent>();
    for (const key of storedFileKeys(outcome.files)) {
      const content = await this.#deps.files.get(this.#deps.workspaceId, key);
      if (content) contents.set(key, content);
    }
    // Emitted through the round's emitter: what the log already holds is not sent twice.
    announce(entry, outcome, round);
    return { toolUseId: entry.call.id, output: modelOutputOf(outcome, contents) };
  }

  async #storeFiles(
    runId: string,
    files: readonly ServerToolFile[],
    contents: Map<string, StoredFileContent>,
  ): Promise<StoredFileMetadata[]> {
    const stored: StoredFileMetadata[] = [];
    for (const file of files) {
      if ('url' in file) {
        stored.push({
          filename: file.filename,
          mimeType: file.mimeType,
          sizeBytes: file.sizeBytes ?? 0,
          url: file.url,
        });
        continue;
      }
      const content = { filename: file.filename, mimeType: file.mimeType, data: file.data };
      const storageKey = await this.#deps.files.put(this.#deps.workspaceId, runId, content);
      contents.set(storageKey, content);
      stored.push({
        filename: file.filename,
        mimeType: file.mimeType,
        sizeBytes: file.data.byteLength,
        storageKey,
      });
    }
    return stored;
  }
}

/** `tool_files` (when the call returned files), then `tool_result`. */
function announce(entry: ServerCall, outcome: ServerCallOutcome, round: RoundContext): void {
  const { call } = entry;
  if (outcome.files.length > 0) {
    round.emit({ type: 'tool_files', data: { name: call.name, files: outcome.files } });
  }
  round.emit({
    type: 'tool_result',
    data: { toolUseId: call.id, name: call.name, ok: outcome.ok, summary: displaySummary(outcome.text) },
  });
}
