import {
  context,
  createTraceState,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { Run, RunOutcome } from '../../domain/run.ts';
import type { RunTraceContext, TraceOrigin } from '../../domain/trace-context.ts';
import type { ClientToolSpan, RunTracing } from '../../engine/ports/tracing.ts';
import type { PresetSpanIds } from './preset-span-ids.ts';

export interface RunSpansOptions {
  tracer: Tracer;
  ids: PresetSpanIds;
  captureMessageContent: boolean;
  /** The workspaces, listed again when a run's is not known yet: `agent_runs.workspace` is its slug. */
  workspaceSlugs(): Promise<ReadonlyArray<{ id: string; slug: string }>>;
  /** A stored agent's name, read when its run ends (it names the run's span). */
  agentName(workspaceId: string, agentId: string): Promise<string | undefined>;
  logger: Logger;
}

/**
 * The engine's spans on OpenTelemetry: a run's executions happen inside its span's context (read
 * from the run's stored trace context, so another process continues the same trace), and its
 * `invoke_agent` span is reported once, by the process that wrote its terminal event, with the id
 * chosen at its creation, from its creation to its end.
 */
export class RunSpans implements RunTracing {
  readonly #options: RunSpansOptions;
  readonly #slugs = new Map<string, string>();
  constructor(options: RunSpansOptions) {
    this.#options = options;
  }

  creatingSpan(): TraceOrigin | undefined {
    const span = trace.getSpanContext(context.active());
    if (!span || !trace.isSpanContextValid(span)) return undefined;
    const traceState = span.traceState?.serialize();
    return {
      traceId: span.traceId,
      spanId: span.spanId,
      traceFlags: span.traceFlags,
      ...(traceState && { traceState }),
    };
  }

  inRun<T>(run: Run, execute: () => Promise<T>): Promise<T> {
    if (!run.traceContext) return execute();
    // From the root: an embedded run may be executed from inside its creating request's context.
    return context.with(trace.setSpanContext(ROOT_CONTEXT, runSpanContext(run.traceContext)), execute);
  }

  runEnded(run: Run, outcome: RunOutcome): void {
    const stored = run.traceContext;
    if (!stored) return;
    const endTime = Date.now();
    const { spec } = run;
    const attributes: Attributes = {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': spec.effective.model.provider,
      'gen_ai.request.model': spec.effective.model.vendorModelId,
      'gen_ai.usage.input_tokens': outcome.tokens.inputTokens,
      'gen_ai.usage.output_tokens': outcome.tokens.outputTokens,
      'agent_runs.run.id': run.id,
      'agent_runs.run.status': outcome.status,
      'agent_runs.turns': outcome.turns,
      ...(run.agentId !== null && { 'gen_ai.agent.id': run.agentId }),
      ...(run.sessionId !== null && { 'gen_ai.conversation.id': run.sessionId }),
      ...(outcome.status === 'failed' && { 'error.type': outcome.failureReason?.errorClass ?? 'error' }),
      ...(this.#options.captureMessageContent &&
        outcome.finalText !== null && {
          'gen_ai.output.messages': JSON.stringify([
            { role: 'assistant', parts: [{ type: 'text', content: outcome.finalText }] },
          ]),
        }),
    };
    void Promise.all([this.#workspaceSlug(run.workspaceId), this.#agentName(run)]).then(
      ([workspace, agentName]) => {
        const { tracer, ids } = this.#options;
        const span = ids.preset({ spanId: stored.spanId, traceId: stored.traceId }, () =>
          tracer.startSpan(
            `invoke_agent ${agentName ?? 'agent'}`,
            {
              kind: SpanKind.INTERNAL,
              startTime: Date.parse(run.createdAt),
              attributes: {
                ...attributes,
                'agent_runs.workspace': workspace,
                ...(agentName !== undefined && { 'gen_ai.agent.name': agentName }),
              },
            },
            parentOf(stored),
          ),
        );
        if (outcome.status === 'failed') {
          span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error ?? '' });
        }
        span.end(endTime);
      },
    );
  }

  clientToolEnded(call: ClientToolSpan): void {
    const { tracer, captureMessageContent } = this.#options;
    const { answer } = call;
    const errorType = answer === undefined ? 'timeout' : 'error' in answer ? 'tool_error' : undefined;
    const span = tracer.startSpan(
      `execute_tool ${call.name}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: Date.parse(call.calledAt),
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': call.name,
          'gen_ai.tool.call.id': call.toolUseId,
          'gen_ai.tool.type': 'function',
          'agent_runs.tool.kind': call.kind,
          ...(errorType !== undefined && { 'error.type': errorType }),
          ...(captureMessageContent &&
            answer !== undefined && {
              'gen_ai.tool.call.result': 'error' in answer ? answer.error : answer.result,
            }),
          ...(captureMessageContent &&
            call.args !== undefined && { 'gen_ai.tool.call.arguments': JSON.stringify(call.args) }),
        },
      },
      context.active(),
    );
    if (errorType !== undefined) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(Date.parse(call.endedAt));
  }

  /** The stored agent's name, else the spec's `name` (undefined for an unnamed agent, or when it cannot be read). */
  async #agentName(run: Run): Promise<string | undefined> {
    if (run.agentId === null) return run.spec.name;
    try {
      return (await this.#options.agentName(run.workspaceId, run.agentId)) ?? run.spec.name;
    } catch (error) {
      this.#options.logger.debug(
        { err: error, agentId: run.agentId },
        'reading the agent name for a span failed',
      );
      return run.spec.name;
    }
  }

  /** The workspace's slug (its id when it cannot be read: the span is reported anyway). */
  async #workspaceSlug(workspaceId: string): Promise<string> {
    const known = this.#slugs.get(workspaceId);
    if (known !== undefined) return known;
    try {
      for (const { id, slug } of await this.#options.workspaceSlugs()) this.#slugs.set(id, slug);
      return this.#slugs.get(workspaceId) ?? workspaceId;
    } catch (error) {
      this.#options.logger.debug({ err: error, workspaceId }, 'reading the workspace slug for a span failed');
      return workspaceId;
    }
  }
}

/** The run's span as its children's parent. */
function runSpanContext(stored: RunTraceContext): SpanContext {
  return {
    traceId: stored.traceId,
    spanId: stored.spanId,
    traceFlags: stored.traceFlags,
    ...(stored.traceState !== undefined && { traceState: createTraceState(stored.traceState) }),
  };
}

/** The creating request's span (reported by the process that served it), or the root. */
function parentOf(stored: RunTraceContext): Context {
  if (stored.parentSpanId === null) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, {
    ...runSpanContext(stored),
    spanId: stored.parentSpanId,
    isRemote: true,
  });
}
