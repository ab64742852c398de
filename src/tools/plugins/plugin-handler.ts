import type { PluginRecordStore, ServerToolHandler, ServerToolOutcome } from '../../engine/ports.ts';
import { failureMessage, type GuardedFetch } from '../server-tool.ts';
import { scopedRecords } from './scoped-records.ts';
import type { PluginContext, ToolPlugin } from './tool-plugin.ts';

/** What a plugin call reaches outside itself; the composition root provides both. */
export interface PluginDeps {
  fetch: GuardedFetch;
  records: PluginRecordStore;
}

/**
 * Runs a plugin as a server-resolved tool: a string is a success, a throw is a tool error the model
 * reads, and a throw after the run's signal aborted propagates so the call is abandoned, not answered.
 */
export function pluginHandler(plugin: ToolPlugin, namespace: string, deps: PluginDeps): ServerToolHandler {
  return async (args, call) => {
    const { agentId, workspaceId } = call;
    const context: PluginContext = {
      workspaceId,
      agentId,
      runId: call.runId,
      signal: call.signal,
      fetch: deps.fetch,
      records:
        agentId === null ? undefined : scopedRecords(deps.records, { workspaceId, agentId, namespace }),
    };
    try {
      const result: unknown = await plugin.execute(args, context);
      if (typeof result === 'string') return { ok: true, text: result };
      if (isOutcome(result)) return result;
      return { ok: false, text: `plugin '${plugin.name}' returned neither a string nor { ok, text }` };
    } catch (error) {
      if (call.signal.aborted) throw error;
      return { ok: false, text: failureMessage(error) };
    }
  };
}

// Operator code is only typed at compile time: a JavaScript plugin can return anything.
function isOutcome(value: unknown): value is ServerToolOutcome {
  if (typeof value !== 'object' || value === null) return false;
  const outcome = value as Record<string, unknown>;
  return typeof outcome.ok === 'boolean' && typeof outcome.text === 'string';
}
