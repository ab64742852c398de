/**
 * The plugin interface operators implement to add `svc_plugin` tools: a module whose default export
 * is a {@link ToolPluginModule}. A run names one of its tools with `{ kind: 'svc_plugin', name }`.
 *
 * @example
 * ```ts
 * import type { ToolPluginModule } from 'agent-runs/src/tools/plugins/tool-plugin.ts';
 *
 * const module: ToolPluginModule = {
 *   name: 'dice',
 *   plugins: [
 *     {
 *       name: 'roll_die',
 *       description: 'Rolls a six-sided die.',
 *       parameters: { type: 'object', properties: {} },
 *       readOnly: true,
 *       execute: async () => String(1 + Math.floor(Math.random() * 6)),
 *     },
 *   ],
 * };
 * export default module;
 * ```
 *
 * @module
 */
import type { PluginRecord, ServerToolFile, ServerToolOutcome } from '../../engine/ports.ts';
import type { GuardedFetch } from '../server-tool.ts';

export type { GuardedFetch, PluginRecord, ServerToolFile, ServerToolOutcome };

/** What a tool name must look like: the name the model calls and a run's ref names. */
export const PLUGIN_NAME_PATTERN = /^[a-zA-Z0-9_]{1,64}$/;

/** One model-facing tool. */
export interface ToolPlugin {
  /** Matches {@link PLUGIN_NAME_PATTERN}; unique across every plugin the server loads. */
  name: string;
  /** What the model reads to decide when and how to call the tool. */
  description: string;
  /**
   * JSON Schema of the arguments, with an object root. The engine validates every call's arguments
   * against it before `execute`: a call that fails never reaches the plugin.
   */
  parameters: Record<string, unknown>;
  /** True when a call changes nothing: it may then run concurrently with the turn's other read-only calls. Default false. */
  readOnly?: boolean;
  /**
   * Runs one call. A string is a successful result (`{ ok: true, text }`); return a
   * {@link ServerToolOutcome} to report a tool error the model sees (`ok: false`) or to attach files.
   * A thrown error becomes `{ ok: false, text: error.message }`, except when `context.signal` was
   * aborted (cancel, shutdown): the call is then abandoned.
   */
  execute(args: Record<string, unknown>, context: PluginContext): Promise<string | ServerToolOutcome>;
}

/** Who a call runs for and what it may use. */
export interface PluginContext {
  workspaceId: string;
  /** The persisted agent the run executes; null for a run of an ephemeral spec. */
  agentId: string | null;
  runId: string;
  /** Aborted on cancel or shutdown: pass it to every long operation. */
  signal: AbortSignal;
  /** The server's fetch: refuses private and loopback addresses, after DNS and on every redirect. Use it for all network access. */
  fetch: GuardedFetch;
  /**
   * This plugin module's records for the run's workspace and agent (other modules, agents and
   * workspaces never see them); undefined when the run has no persisted agent.
   */
  records: PluginRecords | undefined;
}

/** Small text records a plugin module keeps per workspace and agent, in the service's database. */
export interface PluginRecords {
  get(key: string): Promise<PluginRecord | undefined>;
  /** Inserts or replaces the record; its `updatedAt` becomes now. */
  put(key: string, value: string): Promise<void>;
  /** Newest first (by `updatedAt`, then key, descending), at most `limit`. */
  list(limit: number): Promise<PluginRecord[]>;
  /** False when there was no such record. */
  delete(key: string): Promise<boolean>;
}

/** What an operator module exports by default: a named group of plugins. */
export interface ToolPluginModule {
  /** Unique across loaded modules; also the namespace of the module's {@link PluginRecords}. */
  name: string;
  plugins: ToolPlugin[];
}
