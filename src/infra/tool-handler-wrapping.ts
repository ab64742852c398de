import type { OpenedRunTools, ServerToolHandler, ToolCatalog } from '../engine/ports.ts';

/** What a wrapper knows of the server-resolved tool whose handler it wraps. */
export interface WrappedTool {
  /** The name the model calls it by. */
  name: string;
  /** Its tool ref's kind (`mcp`, `http`, `a2a`, …), `unknown` when the opened tools do not list it. */
  kind: string;
}

/**
 * The tool catalog with the handler of every server-resolved tool replaced by `wrap`'s, each time a
 * run's tools are opened (to count or trace its calls); checking refs and closing are unchanged.
 */
export function wrapToolHandlers(
  catalog: ToolCatalog,
  wrap: (handler: ServerToolHandler, tool: WrappedTool) => ServerToolHandler,
): ToolCatalog {
  return {
    check: (workspaceId, refs) => catalog.check(workspaceId, refs),
    async open(refs, scope): Promise<OpenedRunTools> {
      const opened = await catalog.open(refs, scope);
      const handlers = new Map<string, ServerToolHandler>();
      for (const [name, handler] of opened.handlers) {
        handlers.set(name, wrap(handler, { name, kind: opened.tools.get(name)?.kind ?? 'unknown' }));
      }
      return { tools: opened.tools, handlers, close: () => opened.close() };
    },
  };
}

/**
 * How a tool call that threw ended, where that says more than its error: `cancelled` when its run
 * stopped it (`signal`), `timeout` when it ran out of time; undefined otherwise.
 */
export function thrownToolCallEnd(error: unknown, signal: AbortSignal): 'cancelled' | 'timeout' | undefined {
  if (signal.aborted) return 'cancelled';
  if (error instanceof Error && error.name === 'TimeoutError') return 'timeout';
  return undefined;
}
