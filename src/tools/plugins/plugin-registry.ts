import { objectInputSchema } from '../object-schema.ts';
import type { ServerTool } from '../server-tool.ts';
import { currentTimeModule } from './builtin/current-time.ts';
import { fetchWebPageModule } from './builtin/fetch-web-page.ts';
import { memoryModule } from './builtin/memory.ts';
import { pluginHandler, type PluginDeps } from './plugin-handler.ts';
import { PLUGIN_NAME_PATTERN, type ToolPlugin, type ToolPluginModule } from './tool-plugin.ts';

export type { PluginDeps };
export { loadPluginModules } from './plugin-module-loader.ts';

/** A module name is also its records' namespace. */
export const PLUGIN_MODULE_NAME_PATTERN = /^[a-zA-Z0-9@][a-zA-Z0-9@/._-]{0,127}$/;

/** The plugins shipped with the service, registered before any operator module. */
export const FIRST_PARTY_PLUGIN_MODULES: readonly ToolPluginModule[] = [
  fetchWebPageModule,
  currentTimeModule,
  memoryModule,
];

interface RegisteredPlugin {
  plugin: ToolPlugin;
  namespace: string;
}

/** The server's `svc_plugin` tools by name. Registration errors are configuration errors: they stop the start. */
export class PluginRegistry {
  readonly #plugins = new Map<string, RegisteredPlugin>();
  readonly #modules = new Set<string>();

  /** Throws on an invalid or duplicate module or tool name; nothing of a refused module is registered. */
  register(module: ToolPluginModule): void {
    if (!PLUGIN_MODULE_NAME_PATTERN.test(module.name)) {
      throw new Error(
        `plugin module name '${module.name}' is invalid: it must match ${PLUGIN_MODULE_NAME_PATTERN.source}`,
      );
    }
    if (this.#modules.has(module.name)) {
      throw new Error(`plugin module '${module.name}' is registered twice; module names must be unique`);
    }
    const names = new Set<string>();
    for (const plugin of module.plugins) {
      if (!PLUGIN_NAME_PATTERN.test(plugin.name)) {
        throw new Error(
          `plugin module '${module.name}': tool name '${plugin.name}' is invalid: it must match ${PLUGIN_NAME_PATTERN.source}`,
        );
      }
      const owner = names.has(plugin.name) ? module.name : this.#plugins.get(plugin.name)?.namespace;
      if (owner !== undefined) {
        throw new Error(
          `plugin module '${module.name}': a tool named '${plugin.name}' is already registered by '${owner}'; plugin names must be unique`,
        );
      }
      names.add(plugin.name);
    }
    this.#modules.add(module.name);
    for (const plugin of module.plugins) this.#plugins.set(plugin.name, { plugin, namespace: module.name });
  }

  has(name: string): boolean {
    return this.#plugins.has(name);
  }

  /** Registration order: first-party plugins first. */
  names(): string[] {
    return [...this.#plugins.keys()];
  }

  /** The named plugin as a run's server-resolved tool; throws when no plugin has that name (check `has` first). */
  serverTool(name: string, deps: PluginDeps): ServerTool {
    const registered = this.#plugins.get(name);
    if (!registered) throw new Error(`no plugin named '${name}' is registered`);
    const { plugin, namespace } = registered;
    return {
      tool: {
        kind: 'svc_plugin',
        name: plugin.name,
        description: plugin.description,
        inputSchema: objectInputSchema(plugin.parameters),
        readOnly: plugin.readOnly ?? false,
        retain: false,
        callExtras: {},
      },
      handler: pluginHandler(plugin, namespace, deps),
    };
  }
}

/** The first-party plugins, then the operator's modules in the order given. */
export function createPluginRegistry(operatorModules: readonly ToolPluginModule[] = []): PluginRegistry {
  const registry = new PluginRegistry();
  for (const module of [...FIRST_PARTY_PLUGIN_MODULES, ...operatorModules]) registry.register(module);
  return registry;
}
