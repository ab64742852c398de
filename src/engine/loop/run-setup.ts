import type { Run } from '../../domain/run.ts';
import type {
  FileStore,
  ModelResolver,
  RunMetrics,
  RunToolLog,
  SchemaValidator,
  ServerCallStore,
  SessionStore,
  ToolCallStore,
  ToolCatalog,
} from '../ports.ts';
import type { RunTracing } from '../ports/tracing.ts';
import type { RunEmitter } from '../log/run-emitter.ts';
import type { LoggedRound } from '../takeover/logged-round.ts';
import { eventKey } from '../takeover/resume-point.ts';
import { ClientToolExecutor } from '../tools/client-executor.ts';
import { hostToolExecutor } from '../tools/host-executor.ts';
import { ServerToolExecutor } from '../tools/server-executor.ts';
import type { ToolExecutors } from '../tools/tool-executor.ts';
import type { RoundTools } from '../tools/tool-round.ts';
import type { ControlPipeline } from './control-pipeline.ts';
import { initialConversation, type Conversation } from './conversation.ts';
import { modelToolDefinitions, type RunModelSetup } from './model-request.ts';
import type { EmitEvent } from './run-control.ts';

export interface RunSetupDeps {
  resolver: ModelResolver;
  toolCatalog: ToolCatalog;
  validator: SchemaValidator;
  /** A session run's history, read by reference when the run starts. */
  sessionHistory: Pick<SessionStore, 'history'>;
  toolCalls: ToolCallStore;
  serverCalls: ServerCallStore;
  /** Counts client tool calls that time out or end with a cancelled run (none counted when absent). */
  metrics?: RunMetrics;
  files: FileStore;
  /** The run's logger: its tools warn through it. */
  logger: RunToolLog;
  /** Reports client tool spans (none reported when absent). */
  tracing?: RunTracing;
}

/** What a run's turns share, resolved when its execution starts. */
export interface RunSetup {
  model: RunModelSetup;
  executors: ToolExecutors;
  roundTools(offeredHostTools: readonly string[]): RoundTools;
  /** Closes what the run's tools hold open (MCP sessions); called when the execution ends. */
  close(): Promise<void>;
}

/**
 * Resolves the run's model again (its connection may have changed since
 * creation), its tools (an MCP server's catalog is listed now, and its session
 * stays open until `close`), and the conversation it starts from (a session
 * run reads its history now, by reference); the controls learn the model,
 * tools and conversation before the first turn.
 */
export async function setUpRun(
  deps: RunSetupDeps,
  run: Run,
  pipeline: ControlPipeline,
  signal: AbortSignal,
): Promise<RunSetup> {
  const { spec } = run;
  const { effective } = spec;
  const model = await deps.resolver.resolve(run.workspaceId, effective.model.ref);
  const opened = await deps.toolCatalog.open(effective.tools, {
    runId: run.id,
    workspaceId: run.workspaceId,
    agentId: run.agentId,
    signal,
    logger: deps.logger,
  });
  const declared = opened.tools;
  let conversation: Conversation;
  try {
    const history = effective.sessionHistory
      ? await deps.sessionHistory.history(effective.sessionHistory.sessionId, effective.sessionHistory.items)
      : (effective.history ?? []);
    conversation = initialConversation(spec, history);
    // A control may refuse the run here (a setting its model or its other settings cannot honor).
    pipeline.start(model, deps.validator, [...declared.keys()], {
      instructions: conversation.instructions,
      input: conversation.messages,
    });
  } catch (error) {
    await opened.close();
    throw error;
  }
  return {
    model: {
      model,
      instructions: conversation.instructions,
      input: conversation.messages,
      tools: modelToolDefinitions(declared),
      reasoningLevel: effective.reasoningLevel,
    },
    executors: {
      client: new ClientToolExecutor(deps, effective.localToolTimeoutMs),
      server: new ServerToolExecutor({
        serverCalls: deps.serverCalls,
        files: deps.files,
        handlers: opened.handlers,
        workspaceId: run.workspaceId,
        agentId: run.agentId,
      }),
      host: hostToolExecutor,
    },
    roundTools: (offeredHostTools) => ({ declared, pipeline, validator: deps.validator, offeredHostTools }),
    close: () => opened.close(),
  };
}

/**
 * How the loop emits control events. Continuing a round a takeover found pending, an event the log
 * already holds after the checkpoint is not emitted again.
 */
export function roundEmitter(emitter: RunEmitter, logged?: Pick<LoggedRound, 'announced'>): EmitEvent {
  if (!logged || logged.announced.size === 0) return (event) => emitter.emit(event.type, event.data);
  return (event) => {
    if (!logged.announced.has(eventKey(event.type, JSON.stringify(event.data)))) {
      emitter.emit(event.type, event.data);
    }
  };
}
