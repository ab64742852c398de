import type { Repositories } from '../../src/storage/repositories/index.ts';
import { createGuardedFetch } from '../../src/tools/fetch-guard/guarded-fetch.ts';
import { createPluginRegistry } from '../../src/tools/plugins/plugin-registry.ts';
import { RunToolCatalog } from '../../src/tools/run-tools.ts';

/** The service's tool catalog over a test's repositories; tool servers in tests are on loopback. */
export function testToolCatalog(repos: Repositories): RunToolCatalog {
  return new RunToolCatalog({
    workspaceTools: repos.workspaceTools,
    plugins: createPluginRegistry([]),
    pluginRecords: repos.pluginRecords,
    fetch: createGuardedFetch({ allow: ['127.0.0.0/8', '::1/128'] }),
  });
}
