/**
 * The real turn loop on real parts, driven the way the worker's RunExecutor drives it: a migrated
 * SQLite database and its repositories, the event-log writer and a run emitter, the in-process bus
 * and signals, the JSON-schema validator, the tool catalog, and the built-in `mock` provider through
 * the in-thread model port. A test brings only the run controls under test; the model resolver is a
 * fixed ResolvedModel. Client tool calls are answered through `acceptToolResult`, as the route does.
 */
import { Writable } from 'node:stream';
import type { ModelMessage } from 'ai';
import { pino } from 'pino';
import type { ResolvedModel } from '../../src/domain/model.ts';
import type { Run } from '../../src/domain/run.ts';
import type { RunEventData, RunEventType, SerializedRunEvent } from '../../src/domain/run-events.ts';
import type { LocalToolRef } from '../../src/domain/tool-ref.ts';
import type { RunSpec } from '../../src/domain/run-spec.ts';
import type { ClientToolResult } from '../../src/domain/tool-call.ts';
import { acceptToolResult, type IntakeOutcome } from '../../src/engine/lifecycle/tool-result-intake.ts';
import { EventLogWriter } from '../../src/engine/log/event-log-writer.ts';
import { RunEmitter } from '../../src/engine/log/run-emitter.ts';
import { EventLogFailure, RunCancelled, ServiceShutdown } from '../../src/engine/loop/abort-reasons.ts';
import type { ControlPipeline } from '../../src/engine/loop/control-pipeline.ts';
import type { TerminalEvent } from '../../src/engine/loop/terminal-events.ts';
import { TurnLoop, type TurnLoopDeps } from '../../src/engine/loop/turn-loop.ts';
import type { ModelCall, ModelPort, PublishedEvent } from '../../src/engine/ports.ts';
import { FRESH_START } from '../../src/engine/takeover/loop-start.ts';
import { InProcessRunEventBus, InProcessRunSignals } from '../../src/infra/in-process-bus.ts';
import { inThreadModelPort } from '../../src/providers/model-turn.ts';
import { createRepositories, type Repositories } from '../../src/storage/repositories/index.ts';
import { JsonSchemaValidator } from '../../src/tools/json-schema-validator.ts';
import { runToolCatalog } from '../../src/tools/run-tools.ts';
import { openTestStorage } from './engines.ts';

/** A stored event with its data parsed. */
export type LoggedEvent = {
  [T in RunEventType]: { seq: number; type: T; data: RunEventData[T] };
}[RunEventType];

export type LoggedEventOf<T extends RunEventType> = Extract<LoggedEvent, { type: T }>;

/** The longest any wait of these tests may take before it fails (they wait for events, not for time). */
export const WAIT_CAP_MS = 15_000;

export interface RunOptions {
  prompt: string;
  tools?: LocalToolRef[];
  reasoningLevel?: number | null;
  /** The mock's model id: `slow…` pauses about 20 ms between chunks. */
  vendorModelId?: string;
  budgets?: RunSpec['budgets'];
}

export interface RunUnderTest {
  runId: string;
  workspaceId: string;
  /** Every model call of the run, as the loop asked for it (the real model port answered each). */
  calls: ModelCall[];
  /** Live events of the run, in publication order (published only once durable). */
  live: PublishedEvent[];
  /** The next live event of the type (one already published counts), parsed. */
  waitFor<T extends RunEventType>(
    type: T,
    matches?: (event: LoggedEventOf<T>) => boolean,
  ): Promise<LoggedEventOf<T>>;
  /** Posts a client's answer through the intake the HTTP route uses. */
  answer(toolUseId: string, answer: ClientToolResult): Promise<IntakeOutcome>;
  /** The loop's terminal event, once written with the run's outcome, and the whole log read back. */
  ended: Promise<{ terminal: TerminalEvent; events: LoggedEvent[]; run: Run }>;
}

export interface LoopHarness {
  repos: Repositories;
  /** Creates a run, claims it as a worker does, and starts its loop with the given controls. */
  start(options: RunOptions, pipeline: ControlPipeline): Promise<RunUnderTest>;
  /** Error-level log lines of the loops (an unexpected stop is logged there). */
  errorLogs: string[];
  /** Stops any loop still running (as a shutdown would), waits for it, and closes the database. */
  close(): Promise<void>;
}

export function resolvedMockModel(vendorModelId: string): ResolvedModel {
  return {
    id: `mock/${vendorModelId}`,
    label: 'Mock',
    provider: 'mock',
    vendorModelId,
    source: 'platform_offering',
    contextWindowTokens: 128_000,
    pricing: null,
    api: 'mock',
    baseUrl: null,
    apiKey: null,
    connectionRef: 'platform:builtin-mock-echo',
    reasoningControl: true,
  };
}

export function parseEvent(event: SerializedRunEvent): LoggedEvent {
  return { seq: event.seq, type: event.type, data: JSON.parse(event.dataJson) } as LoggedEvent;
}

/** Rejects with `what` when `promise` has not settled within the cap (the timer never outlives it). */
export async function within<T>(promise: Promise<T>, what: string, capMs = WAIT_CAP_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`gave up waiting for ${what} after ${capMs} ms`)), capMs);
  });
  try {
    return await Promise.race([promise, cap]);
  } finally {
    clearTimeout(timer);
  }
}

export async function openLoopHarness(): Promise<LoopHarness> {
  const storage = await openTestStorage('sqlite');
  const repos = createRepositories(storage.db);
  const bus = new InProcessRunEventBus();
  const signals = new InProcessRunSignals();
  const writer = new EventLogWriter(repos.runEvents, bus);
  const validator = new JsonSchemaValidator();
  const errorLogs: string[] = [];
  const logger = pino(
    { level: 'error' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        errorLogs.push(chunk.toString());
        done();
      },
    }),
  );
  const workspace = await repos.workspaces.create({
    slug: 'loop-tests',
    name: 'loop tests',
    features: { apiKeys: true, oauthApps: false },
    rateLimits: {},
  });
  const running = new Set<{ halt: (reason: Error) => void; done: Promise<unknown> }>();

  async function start(options: RunOptions, pipeline: ControlPipeline): Promise<RunUnderTest> {
    const vendorModelId = options.vendorModelId ?? 'echo';
    const model = resolvedMockModel(vendorModelId);
    const spec: RunSpec = {
      prompt: options.prompt,
      ...(options.budgets && { budgets: options.budgets }),
      effective: {
        systemPrompt: 'You are the agent under test.',
        model: { ref: model.connectionRef, id: model.id, provider: model.provider, vendorModelId },
        reasoningLevel: options.reasoningLevel ?? null,
        tools: options.tools ?? [],
        localToolTimeoutMs: 60_000,
      },
    };
    const created = await repos.runs.create({
      workspaceId: workspace.id,
      agentId: null,
      sessionId: null,
      apiKeyId: null,
      spec,
      metadata: {},
    });

    const live: PublishedEvent[] = [];
    const waiters = new Set<() => void>();
    const unsubscribe = await bus.subscribe(created.id, (event) => {
      live.push(event);
      for (const wake of [...waiters]) wake();
    });

    const calls: ModelCall[] = [];
    // The real model port; the loop's requests are kept for the test to read.
    const models: ModelPort = {
      call: (call, signal, output) => {
        calls.push(structuredClone(call));
        return inThreadModelPort.call(call, signal, output);
      },
      close: () => inThreadModelPort.close(),
    };
    const deps: TurnLoopDeps = {
      models,
      retryPolicy: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
      logger,
      resolver: { resolve: async () => model },
      toolCatalog: runToolCatalog,
      validator,
      sessionHistory: repos.sessions,
      toolCalls: repos.toolCalls,
      signals,
      checkpoints: repos.checkpoints,
    };

    // As RunExecutor: listen for signals, claim the run, number its events, run the loop, end it.
    const abort = new AbortController();
    const stop = new AbortController();
    const halt = (reason: Error) => {
      if (!abort.signal.aborted) abort.abort(reason);
      if (!stop.signal.aborted) stop.abort(reason);
    };
    const stopListening = await signals.listen(created.id, (signal) => {
      if (signal.kind === 'cancel' && !abort.signal.aborted) abort.abort(new RunCancelled());
    });
    const claimed = await repos.runs.claimAttempt(created.id);
    if (!claimed) throw new Error('the new run could not be claimed');
    const emitter = new RunEmitter(writer, created.id, 0, (error) => halt(new EventLogFailure(error)));
    const loop = new TurnLoop(
      deps,
      claimed.run,
      pipeline,
      emitter,
      { abort: abort.signal, stop: stop.signal },
      FRESH_START,
    );
    const ended = (async () => {
      try {
        const terminal = await loop.execute();
        // As on a shutdown, a run the harness stopped is left without a terminal event.
        if (abort.signal.reason instanceof ServiceShutdown) throw abort.signal.reason;
        await emitter.end(terminal);
        const events = (await repos.runEvents.readAfter(created.id, 0, 100_000)).map(parseEvent);
        const run = await repos.runs.findById(workspace.id, created.id);
        if (!run) throw new Error('the run row is gone');
        return { terminal, events, run };
      } finally {
        stopListening();
        unsubscribe();
      }
    })();
    const entry = { halt, done: ended.catch(() => undefined) };
    running.add(entry);
    void entry.done.then(() => running.delete(entry));

    return {
      runId: created.id,
      workspaceId: workspace.id,
      calls,
      live,
      ended,
      waitFor<T extends RunEventType>(type: T, matches: (event: LoggedEventOf<T>) => boolean = () => true) {
        const found = () =>
          live
            .filter((event) => event.type === type)
            .map((event) => parseEvent(event) as LoggedEventOf<T>)
            .find(matches);
        return within(
          new Promise<LoggedEventOf<T>>((resolve) => {
            const check = () => {
              const event = found();
              if (!event) return;
              waiters.delete(check);
              resolve(event);
            };
            waiters.add(check);
            check();
          }),
          `a ${type} event of run ${created.id}`,
        );
      },
      answer: (toolUseId, answer) =>
        acceptToolResult(
          { runs: repos.runs, toolCalls: repos.toolCalls, signals, logger },
          workspace.id,
          created.id,
          toolUseId,
          answer,
        ),
    };
  }

  return {
    repos,
    start,
    errorLogs,
    close: async () => {
      for (const entry of running) entry.halt(new ServiceShutdown());
      await Promise.all([...running].map((entry) => entry.done));
      await writer.durable().catch(() => undefined);
      await storage.drop();
    },
  };
}

/** Events of the types given, in log order. */
export function ofType<T extends RunEventType>(events: readonly LoggedEvent[], type: T): LoggedEventOf<T>[] {
  return events.filter((event): event is LoggedEventOf<T> => event.type === type);
}

/** The log's event types with the deltas left out. */
export function withoutDeltas(events: readonly LoggedEvent[]): RunEventType[] {
  return events
    .map((event) => event.type)
    .filter((type) => type !== 'assistant_delta' && type !== 'thinking_delta');
}

/** What a text reply looks like in a later turn's request: the provider's assistant message. */
export function assistantText(message: ModelMessage | undefined): string | undefined {
  if (message?.role !== 'assistant') return undefined;
  if (typeof message.content === 'string') return message.content;
  return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
}
