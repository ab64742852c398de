import type { PluginRecordScope, PluginRecordStore } from '../../engine/ports.ts';
import type { PluginRecords } from './tool-plugin.ts';

/** The store bound to one workspace, agent and module namespace: a plugin cannot name another scope. */
export function scopedRecords(store: PluginRecordStore, scope: PluginRecordScope): PluginRecords {
  return {
    get: (key) => store.get(scope, key),
    put: (key, value) => store.put(scope, key, value),
    list: (limit) => store.list(scope, limit),
    delete: (key) => store.delete(scope, key),
  };
}
