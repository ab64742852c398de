import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { modelErrorClass, type ModelPort, type ToolCatalog } from '../../engine/ports.ts';
import { thrownToolCallEnd, wrapToolHandlers } from '../tool-handler-wrapping.ts';
import { chatInputAttributes, chatOutputAttributes } from './genai-messages.ts';

export interface TracedPortOptions {
  tracer: Tracer;
  /** Prompts, replies and tool arguments and results on spans (off by default). */
  captureMessageContent: boolean;
}

/**
 * The model port with a `chat {model}` CLIENT span around each call, a child of the active context
 * (the run's span). The call runs in the span's context and carries its `traceparent` as headers of
 * the provider request, which reach the provider from a model thread too.
 */
export function tracedModelPort(models: ModelPort, options: TracedPortOptions): ModelPort {
  const { tracer, captureMessageContent } = options;
  return {
    async call(call, signal, output) {
      const { provider, vendorModelId } = call.model;
      const parent = context.active();
      const span = tracer.startSpan(
        `chat ${vendorModelId}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.provider.name': provider,
            'gen_ai.request.model': vendorModelId,
            ...(captureMessageContent && chatInputAttributes(call)),
          },
        },
        parent,
      );
      const inSpan = trace.setSpan(parent, span);
      const headers: Record<string, string> = { ...call.headers };
      propagation.inject(inSpan, headers);
      try {
        const turn = await context.with(inSpan, () => models.call({ ...call, headers }, signal, output));
        span.setAttributes({
          'gen_ai.usage.input_tokens': turn.usage.inputTokens,
          'gen_ai.usage.output_tokens': turn.usage.outputTokens,
          'gen_ai.response.finish_reasons': turn.finishReason === null ? [] : [turn.finishReason],
          ...(captureMessageContent && chatOutputAttributes(turn)),
        });
        return turn;
      } catch (error) {
        failed(span, modelErrorClass(error, signal) ?? errorName(error), error);
        throw error;
      } finally {
        span.end();
      }
    },
    close: () => models.close(),
  };
}

/**
 * The tool catalog, with an `execute_tool {tool name}` span around every server-resolved call, a
 * child of the active context (the run's span); the call runs in its context, so the requests it
 * sends carry its trace.
 */
export function tracedToolCatalog(catalog: ToolCatalog, options: TracedPortOptions): ToolCatalog {
  const { tracer, captureMessageContent } = options;
  return wrapToolHandlers(catalog, (handler, { name, kind }) => async (args, callContext) => {
    const parent = context.active();
    const span = tracer.startSpan(
      `execute_tool ${name}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': name,
          'gen_ai.tool.type': 'function',
          'agent_runs.tool.kind': kind,
          ...(callContext.toolUseId !== undefined && { 'gen_ai.tool.call.id': callContext.toolUseId }),
          ...(captureMessageContent && { 'gen_ai.tool.call.arguments': JSON.stringify(args) }),
        },
      },
      parent,
    );
    try {
      const returned = await context.with(trace.setSpan(parent, span), () => handler(args, callContext));
      if (captureMessageContent) span.setAttribute('gen_ai.tool.call.result', returned.text);
      if (!returned.ok) failed(span, 'tool_error');
      return returned;
    } catch (error) {
      failed(span, thrownToolCallEnd(error, callContext.signal) ?? errorName(error), error);
      throw error;
    } finally {
      span.end();
    }
  });
}

function failed(span: Span, errorType: string, error?: unknown): void {
  span.setAttribute('error.type', errorType);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    ...(error instanceof Error && { message: error.message }),
  });
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'unknown';
}
