/**
 * The real turn loop on real parts, run by the worker's own RunExecutor: a migrated SQLite database
 * and its repositories, the event-log writer, the in-process bus, signals and queue, the dispatcher
 * (a run waiting for a client tool parks and is woken by its answer), the JSON-schema validator, the
 * tool catalog, and the built-in `mock` provider through the in-thread model port. A test brings
 * only the run controls under test; the model resolver answers with the run's mock model. Client
 * tool calls are answered through `acceptToolResult`, as the route does.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { ModelMessage } from 'ai';
import { pino } from 'pino';
import type { ResolvedModel } from '../../src/domain/model.ts';
import type { Run } from '../../src/domain/run.ts';
import {
  isTerminalEventType,
  type RunEventData,
  type RunEventType,
  type SerializedRunEvent,
} from '../../src/domain/run-events.ts';
import { decodeRunEvent } from '../../src/domain/stored-events.ts';
import type { ToolRef } from '../../src/domain/tool-ref.ts';
import type { RunSpec } from '../../src/domain/run-spec.ts';
import type { ClientToolResult } from '../../src/domain/tool-call.ts';
import { acceptToolResult, type IntakeOutcome } from '../../src/engine/lifecycle/tool-result-intake.ts';
import { RunDispatcher } from '../../src/engine/lifecycle/run-dispatcher.ts';
import { RunExecutor } from '../../src/engine/lifecycle/run-executor.ts';
import { EventLogWriter } from '../../src/engine/log/event-log-writer.ts';
import { controlPipelineFor } from '../../src/engine/controls/run-controls.ts';
import type { ControlPipeline } from '../../src/engine/loop/control-pipeline.ts';
import type { ModelCall, ModelPort, ModelResolver, PublishedEvent } from '../../src/engine/ports.ts';
import { InProcessRunEventBus, InProcessRunSignals } from '../../src/infra/in-process-bus.ts';
import { InProcessRunQueue } from '../../src/infra/in-process-queue.ts';
import { aiSdkModelPort } from '../../src/providers/ai-sdk-model-turn.ts';
import { supervisorJudges } from '../../src/providers/supervisor-judge/supervisor-judge.ts';
import { taskPlanner } from '../../src/providers/task-planner/task-planner.ts';
import { createRepositories, type Repositories } from '../../src/storage/repositories/index.ts';
import { JsonSchemaValidator } from '../../src/tools/json-schema-validator.ts';
import { testToolCatalog } from './tool-catalog.ts';
import { openTestStorage } from './engines.ts';
import { WAIT_CAP_MS, withCap } from './waits.ts';

/** A stored event with its data parsed. */
export type LoggedEvent = {
  [T in RunEventType]: { seq: number; type: T; data: RunEventData[T] };
}[RunEventType];

export type LoggedEventOf<T extends RunEventType> = Extract<LoggedEvent, { type: T }>;

export type TerminalLoggedEvent = LoggedEventOf<'result' | 'error' | 'cancelled'>;

/** The run-control settings of a spec a test may set (the pipeline is then the one the spec asks for). */
export type ControlSettings = Pick<
  RunSpec,
  'budgets' | 'loopDetection' | 'toolBudgets' | 'outputSchema' | 'plan' | 'supervisor'
>;

export interface RunOptions extends ControlSettings {
  prompt: string;
  tools?: ToolRef[];
  reasoningLevel?: number | null;
  /** The mock's model id: `slow…` pauses about 20 ms between chunks. */
  vendorModelId?: string;
  /** Another model than the mock (a fake provider on loopback, `fakeProviderModel`). */
  model?: ResolvedModel;
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
  /** The run's terminal event, once written with the run's outcome, and the whole log read back. */
  ended: Promise<{ terminal: TerminalLoggedEvent; events: LoggedEvent[]; run: Run }>;
}

export interface LoopHarness {
  repos: Repositories;
  /**
   * Creates a run with the given controls (by default those its spec asks for, as the worker builds
   * them) and admits it to a worker, as the API does.
   */
  start(options: RunOptions, pipeline?: ControlPipeline): Promise<RunUnderTest>;
  /** Error-level log lines of the loops (an unexpected stop is logged there). */
  errorLogs: string[];
  /** Stops the worker (a run still going is handed over, as on a shutdown) and closes the database. */
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

/** A model served by a fake provider on loopback (test/fakes), speaking `api`. */
export function fakeProviderModel(api: 'openai-chat' | 'anthropic-messages', baseUrl: string): ResolvedModel {
  const provider = api === 'openai-chat' ? 'fakeopenai' : 'anthropic';
  return {
    ...resolvedMockModel('fake-model'),
    id: `${provider}/fake-model`,
    label: 'Fake',
    provider,
    api,
    baseUrl,
    apiKey: 'sk-fake-provider-key',
    reasoningControl: false,
  };
}

export function parseEvent(event: SerializedRunEvent): LoggedEvent {
  return { seq: event.seq, ...decodeRunEvent(event) };
}

/** Rejects naming `what` when `promise` has not settled within the suite's wait cap. */
export function within<T>(promise: Promise<T>, what: string): Promise<T> {
  return withCap(promise, WAIT_CAP_MS, () => `gave up waiting for ${what} after ${WAIT_CAP_MS} ms`);
}

export async function openLoopHarness(): Promise<LoopHarness> {
  const storage = await openTestStorage('sqlite');
  const repos = createRepositories(storage.db);
  const bus = new InProcessRunEventBus();
  const signals = new InProcessRunSignals();
  const writer = new EventLogWriter(repos.runEvents, bus);
  const queue = new InProcessRunQueue({ concurrency: 16 });
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
  const dispatcher = new RunDispatcher({ dispatch: repos.dispatch, queue, logger });
  const workspace = await repos.workspaces.create({
    slug: 'loop-tests',
    name: 'loop tests',
    features: { apiKeys: true, oauthApps: false },
    rateLimits: {},
    maxConcurrentRuns: 100,
  });
  // Each run's controls under test and model calls, by run id.
  const pipelines = new Map<string, ControlPipeline | 'from_spec'>();
  const calls = new Map<string, ModelCall[]>();
  const models = new Map<string, ResolvedModel>();
  // The real model port; the loop's requests are kept for the test to read.
  const modelPort: ModelPort = {
    call: (call, signal, output) => {
      calls.get(call.model.connectionRef)?.push(structuredClone(call));
      return aiSdkModelPort.call(call, signal, output);
    },
    close: () => aiSdkModelPort.close(),
  };
  const shutdown = new AbortController();
  const executor = new RunExecutor({
    shutdown: shutdown.signal,
    fenceWrites: false,
    runs: repos.runs,
    dispatcher,
    // A test's own pipeline, else the one the run's spec asks for, with the context the worker gives
    // it: the supervisor's judge and a plan-only run's planner call models through the same port,
    // the judge on the run's own model when the setting names none (the workspace default there).
    controlsFor: (run, signal, runLog) => {
      const pipeline = pipelines.get(run.id);
      if (pipeline === undefined) throw new Error(`no controls registered for run ${run.id}`);
      if (pipeline !== 'from_spec') return pipeline;
      const resolve: ModelResolver['resolve'] = async (_workspaceId, ref) => {
        const model = models.get(ref ?? run.spec.effective.model.ref);
        if (!model) throw new Error(`no model registered as ${String(ref)}`);
        return model;
      };
      return controlPipelineFor(run.spec, {
        runId: run.id,
        workspaceId: run.workspaceId,
        signal,
        logger: runLog,
        judges: supervisorJudges({ models: modelPort, resolver: { resolve } }),
        planner: taskPlanner(modelPort),
      });
    },
    events: repos.runEvents,
    writer,
    signals,
    models: modelPort,
    retryPolicy: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    executionRetry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    cancelCheckMs: undefined,
    logger,
    // Each run's model is its own: the resolver answers with the one the test asked for.
    resolver: {
      resolve: async (_workspaceId, ref) => {
        const model = ref && models.get(ref);
        if (!model) throw new Error(`no model registered as ${String(ref)}`);
        return model;
      },
    },
    toolCatalog: testToolCatalog(repos),
    validator: new JsonSchemaValidator(),
    sessionHistory: repos.sessions,
    toolCalls: repos.toolCalls,
    serverCalls: repos.serverCalls,
    files: repos.files,
    checkpoints: repos.checkpoints,
  });
  queue.consume((job) => executor.execute(job));

  async function start(options: RunOptions, given?: ControlPipeline): Promise<RunUnderTest> {
    const ref = `platform:mock-${randomUUID()}`;
    const model = {
      ...(options.model ?? resolvedMockModel(options.vendorModelId ?? 'echo')),
      connectionRef: ref,
    };
    const { vendorModelId } = model;
    const spec: RunSpec = {
      prompt: options.prompt,
      ...(options.budgets && { budgets: options.budgets }),
      ...(options.loopDetection !== undefined && { loopDetection: options.loopDetection }),
      ...(options.toolBudgets && { toolBudgets: options.toolBudgets }),
      ...(options.outputSchema && { outputSchema: options.outputSchema }),
      ...(options.plan !== undefined && { plan: options.plan }),
      ...(options.supervisor !== undefined && { supervisor: options.supervisor }),
      effective: {
        systemPrompt: 'You are the agent under test.',
        model: { ref, id: model.id, provider: model.provider, vendorModelId },
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
    pipelines.set(created.id, given ?? 'from_spec');
    models.set(ref, model);
    const runCalls: ModelCall[] = [];
    calls.set(ref, runCalls);

    const live: PublishedEvent[] = [];
    const waiters = new Set<() => void>();
    const unsubscribe = await bus.subscribe(created.id, (event) => {
      live.push(event);
      for (const wake of [...waiters]) wake();
    });
    const waitFor: RunUnderTest['waitFor'] = (type, matches = () => true) => {
      const found = () =>
        live
          .filter((event) => event.type === type)
          .map((event) => parseEvent(event) as LoggedEventOf<typeof type>)
          .find(matches);
      return within(
        new Promise((resolve) => {
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
    };
    // As the API does: the run waits for a slot of its workspace and is admitted to a worker.
    await dispatcher.admit(workspace.id);

    const ended = (async () => {
      try {
        const terminal = await new Promise<LoggedEvent>((resolve) => {
          const check = () => {
            const last = live.at(-1);
            if (!last || !isTerminalEventType(last.type)) return;
            waiters.delete(check);
            resolve(parseEvent(last));
          };
          waiters.add(check);
          check();
        });
        const events = (await repos.runEvents.readAfter(created.id, 0, 100_000)).map(parseEvent);
        const run = await repos.runs.findById(workspace.id, created.id);
        if (!run) throw new Error('the run row is gone');
        return { terminal: terminal as TerminalLoggedEvent, events, run };
      } finally {
        unsubscribe();
      }
    })();

    return {
      runId: created.id,
      workspaceId: workspace.id,
      calls: runCalls,
      live,
      ended,
      waitFor,
      answer: (toolUseId, answer) =>
        acceptToolResult(
          { runs: repos.runs, toolCalls: repos.toolCalls, dispatcher, logger },
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
      shutdown.abort();
      await dispatcher.close();
      await queue.close();
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
