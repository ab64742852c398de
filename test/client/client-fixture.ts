import { AgentRunsClient } from '@agent-runs/client';
import { createWorkspaceWithKey, startTestServer, type TestServer } from '../support/test-server.ts';

/** The offline model that echoes the prompt; `SLOW_MODEL` does the same about 20 ms per word. */
export const ECHO_MODEL = 'mock/echo';
export const SLOW_MODEL = 'mock/slow-echo';

/** The real service (dev mode: the offline mock model) with one workspace, its API key and a client. */
export interface ClientFixture {
  server: TestServer;
  slug: string;
  key: string;
  client: AgentRunsClient;
  /** A client for this workspace with another credential or fetch. */
  clientWith(options: Partial<ConstructorParameters<typeof AgentRunsClient>[0]>): AgentRunsClient;
  close(): Promise<void>;
}

export async function startClientFixture(slug = 'sdk'): Promise<ClientFixture> {
  const server = await startTestServer({ dev: true });
  try {
    const created = await server.admin('POST', '/offerings', {
      provider: 'mock',
      vendorModelId: 'slow-echo',
    });
    if (created.status !== 201)
      throw new Error(`offering: ${created.status} ${JSON.stringify(created.body)}`);
    const { key } = await createWorkspaceWithKey(server, slug);
    const clientWith = (options: Partial<ConstructorParameters<typeof AgentRunsClient>[0]>) =>
      new AgentRunsClient({ baseUrl: server.baseUrl, workspace: slug, credential: key, ...options });
    return { server, slug, key, client: clientWith({}), clientWith, close: () => server.close() };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/** `words` numbered words, for a prompt the slow model streams one delta at a time. */
export function wordsPrompt(words: number): string {
  return Array.from({ length: words }, (_, index) => `w${index}`).join(' ');
}
