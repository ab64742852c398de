import { prepareDeployment, type TestServerOptions } from './test-deployment.ts';
import type { TestServer } from './served-service.ts';

export {
  jsonRequester,
  serveOn,
  testServerAt,
  type TestResponse,
  type TestServer,
} from './served-service.ts';
export type { TestServerOptions } from './test-deployment.ts';

/**
 * The real service on port 0 over a fresh database, spoken to over HTTP like a client: embedded or
 * scale-out as the run's deployment says (`test/support/deployment.ts`), unless the options name a
 * storage engine, which starts it embedded on that engine.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const deployment = await prepareDeployment(options);
  let server: TestServer;
  try {
    server = await deployment.start();
  } catch (error) {
    await deployment.drop();
    throw error;
  }
  return {
    ...server,
    close: async () => {
      try {
        await server.close();
      } finally {
        await deployment.drop();
      }
    },
  };
}

/** A workspace with one Developer-API key, through the admin API. */
export async function createWorkspaceWithKey(
  server: TestServer,
  slug: string,
  workspace: Record<string, unknown> = {},
  key: Record<string, unknown> = {},
): Promise<{ slug: string; key: string; keyId: string; ws: string }> {
  const created = await server.admin('POST', '/workspaces', { slug, ...workspace });
  if (created.status !== 201) throw new Error(`workspace: ${created.status} ${JSON.stringify(created.body)}`);
  const apiKey = await server.admin('POST', `/workspaces/${slug}/api-keys`, key);
  if (apiKey.status !== 201) throw new Error(`api key: ${apiKey.status} ${JSON.stringify(apiKey.body)}`);
  return { slug, key: apiKey.body.key, keyId: apiKey.body.id, ws: `/api/v1/workspaces/${slug}` };
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}
