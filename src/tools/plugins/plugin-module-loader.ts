import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isJsonObject } from '../../domain/json-object.ts';
import { objectRootSchema } from '../object-schema.ts';
import type { ToolPluginModule } from './tool-plugin.ts';

/**
 * Imports operator plugin modules, in order. A specifier starting with `./` or `../` (or an absolute
 * path, or a `file:` URL) is a file relative to `baseDir`; anything else is a package name, resolved
 * from the service's own `node_modules`. Throws, naming the module, when one cannot be imported or
 * its default export is not a {@link ToolPluginModule}.
 */
export async function loadPluginModules(
  specifiers: readonly string[],
  baseDir: string,
): Promise<ToolPluginModule[]> {
  const modules: ToolPluginModule[] = [];
  for (const specifier of specifiers) {
    let imported: { default?: unknown };
    try {
      imported = (await import(importTarget(specifier, baseDir))) as { default?: unknown };
    } catch (error) {
      throw new Error(`plugin module '${specifier}' could not be imported: ${(error as Error).message}`, {
        cause: error,
      });
    }
    modules.push(checkPluginModule(imported.default, specifier));
  }
  return modules;
}

function importTarget(specifier: string, baseDir: string): string {
  if (specifier.startsWith('file:')) return specifier;
  const isPath = specifier.startsWith('./') || specifier.startsWith('../') || isAbsolute(specifier);
  return isPath ? pathToFileURL(resolve(baseDir, specifier)).href : specifier;
}

/** The value as a plugin module, or an error saying which field of which module is wrong. */
export function checkPluginModule(value: unknown, source: string): ToolPluginModule {
  const fail = (problem: string): never => {
    throw new Error(`plugin module '${source}': ${problem}`);
  };
  if (!isJsonObject(value)) return fail('its default export must be an object { name, plugins }');
  if (typeof value.name !== 'string') return fail('name must be a string');
  if (!Array.isArray(value.plugins) || value.plugins.length === 0) {
    return fail('plugins must be a non-empty array');
  }
  value.plugins.forEach((plugin: unknown, index) => {
    const at = `plugins[${index}]`;
    if (!isJsonObject(plugin)) return fail(`${at} must be an object`);
    if (typeof plugin.name !== 'string') return fail(`${at}.name must be a string`);
    if (typeof plugin.description !== 'string') return fail(`${at}.description must be a string`);
    if (objectRootSchema(plugin.parameters) === undefined) {
      return fail(`${at}.parameters must be a JSON Schema with an object root`);
    }
    if (plugin.readOnly !== undefined && typeof plugin.readOnly !== 'boolean') {
      return fail(`${at}.readOnly must be a boolean when present`);
    }
    if (typeof plugin.execute !== 'function') return fail(`${at}.execute must be a function`);
    return undefined;
  });
  return value as unknown as ToolPluginModule;
}
