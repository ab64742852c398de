import {
  modelErrorClass,
  type ModelPort,
  type RunMetrics,
  type ToolCallOutcome,
  type ToolCatalog,
} from '../engine/ports.ts';
import { thrownToolCallEnd, wrapToolHandlers } from './tool-handler-wrapping.ts';

const secondsSince = (start: number) => (performance.now() - start) / 1000;

/**
 * The model port, counted: each call's outcome (`ok` or the failure's `errorClass`; `cancelled` when
 * it was aborted), duration, time to its first text or thought delta, and the tokens it reports.
 */
export function meteredModelPort(models: ModelPort, metrics: RunMetrics): ModelPort {
  return {
    async call(call, signal, output) {
      const { provider, vendorModelId: model } = call.model;
      const start = performance.now();
      let first = true;
      const firstToken = () => {
        if (!first) return;
        first = false;
        metrics.modelTimeToFirstToken(provider, secondsSince(start));
      };
      try {
        const turn = await models.call(call, signal, {
          onText: (text) => {
            firstToken();
            output.onText(text);
          },
          onThinking: (text) => {
            firstToken();
            output.onThinking(text);
          },
        });
        metrics.modelCall(provider, model, 'ok', secondsSince(start));
        const { usage } = turn;
        metrics.tokens(provider, model, 'input', usage.inputTokens);
        metrics.tokens(provider, model, 'output', usage.outputTokens);
        metrics.tokens(provider, model, 'reasoning', usage.reasoningTokens);
        metrics.tokens(provider, model, 'cache_read', usage.cachedTokens);
        return turn;
      } catch (error) {
        metrics.modelCall(provider, model, modelErrorClass(error, signal) ?? 'unknown', secondsSince(start));
        throw error;
      }
    },
    close: () => models.close(),
  };
}

/** The tool catalog, with every server-resolved call counted by its tool ref kind, outcome and duration. */
export function meteredToolCatalog(catalog: ToolCatalog, metrics: RunMetrics): ToolCatalog {
  return wrapToolHandlers(catalog, (handler, { kind }) => async (args, context) => {
    const start = performance.now();
    let outcome: ToolCallOutcome = 'error';
    try {
      const returned = await handler(args, context);
      outcome = returned.ok ? 'ok' : 'error';
      return returned;
    } catch (error) {
      outcome = thrownToolCallEnd(error, context.signal) ?? 'error';
      throw error;
    } finally {
      metrics.toolCall(kind, outcome, secondsSince(start));
    }
  });
}
