import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Run, RunOutcome } from '../../domain/run.ts';
import type { ClientToolResult, ToolCallRecord } from '../../domain/tool-call.ts';
import type { TraceOrigin } from '../../domain/trace-context.ts';

/** A client tool call's span: from its `local_tool_call` to its answer (or its timeout). */
export interface ClientToolSpan {
  toolUseId: string;
  name: string;
  kind: string;
  /** When the call was stored (ISO time). */
  calledAt: string;
  /** When it was answered or expired (ISO time). */
  endedAt: string;
  /** The answer; undefined when the call timed out. */
  answer: ClientToolResult | undefined;
  /** The call's arguments, as the model gave them. */
  args: unknown;
}

/**
 * What the engine reports for OpenTelemetry traces (extensions §3). The model and tool spans come
 * from wrappers around the model port and the tool catalog; the engine reports the rest here.
 */
export interface RunTracing {
  /** The span of the request creating a run now (the active span), if one is traced. */
  creatingSpan(): TraceOrigin | undefined;
  /**
   * Runs one execution of `run` with its span as the active context: the model and tool spans of the
   * execution become its children, whichever process executes it.
   */
  inRun<T>(run: Run, execute: () => Promise<T>): Promise<T>;
  /** The run's terminal event is written: its `invoke_agent` span, from its creation to now, is reported once. */
  runEnded(run: Run, outcome: RunOutcome): void;
  /** A client tool call was answered or timed out (called once per call, in the run's context). */
  clientToolEnded(span: ClientToolSpan): void;
}

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * HTTP server spans (extensions §3), where tracing is on: each request runs inside its SERVER span
 * (its parent the caller's `traceparent`), so that what a handler starts (a run) joins its trace.
 */
export interface RequestTracing {
  /** The server's request listener, running each request in its span's context. */
  traced(listener: RequestListener): RequestListener;
  /** Names the request's span after the route template that matched it (never the raw path). */
  routed(request: IncomingMessage, route: string): void;
}

/** Traces nothing: the default where tracing is not configured. */
export const noTracing: RunTracing = {
  creatingSpan: () => undefined,
  inRun: (_run, execute) => execute(),
  runEnded: () => {},
  clientToolEnded: () => {},
};

/** A client tool record as its span reports it, once it has ended. */
export function clientToolSpanOf(record: ToolCallRecord, args: unknown, endedAt: string): ClientToolSpan {
  return {
    toolUseId: record.toolUseId,
    name: record.name,
    kind: record.kind,
    calledAt: record.createdAt,
    endedAt: record.answeredAt ?? endedAt,
    answer: record.result ?? undefined,
    args,
  };
}
