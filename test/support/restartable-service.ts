import assert from 'node:assert/strict';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { endRun } from './run-cleanup.ts';
import { watchStream, type RunWatch } from './stream-watch.ts';
import { prepareDeployment } from './test-deployment.ts';
import { bearer, createWorkspaceWithKey, type TestServer } from './test-server.ts';

/**
 * One database that services start on in turn, as a restart would: each picks up the unfinished
 * runs of the one before (on the scale-out deployment, the API and the worker both restart). A
 * workspace on a fake Anthropic provider is provisioned once.
 */
export interface RestartableService {
  fake: FakeProviderServer;
  ws: string;
  slug: string;
  headers: Record<string, string>;
  /** Stops the running service (giving runs 100 ms, then leaving them unfinished) and starts the next one. */
  restart(): Promise<TestServer>;
  /** Creates a run on `server` that must be accepted, and watches its stream. */
  startRun(server: TestServer, body: Record<string, unknown>): Promise<RunWatch>;
  streamUrl(server: TestServer, runId: string): string;
  /** What every test does last: closes its streams, ends its runs on the running service, resets the fake. */
  cleanUp(): Promise<void>;
  close(): Promise<void>;
}

export async function startRestartableService(options: {
  slug: string;
  env?: Record<string, string>;
  logLines?: string[];
}): Promise<RestartableService> {
  const deployment = await prepareDeployment({
    engine: { shutdownGraceMs: 100 },
    ...(options.env && { env: options.env }),
    ...(options.logLines && { logLines: options.logLines }),
  });
  const fake = await startFakeAnthropic();
  const start = () => deployment.start();
  const setup = await start();
  let workspace: Awaited<ReturnType<typeof createWorkspaceWithKey>>;
  try {
    workspace = await createWorkspaceWithKey(setup, options.slug);
    const provider = await setup.admin('POST', `/workspaces/${workspace.slug}/providers`, {
      provider: 'anthropic',
      api: 'anthropic-messages',
      baseUrl: fake.url,
      apiKey: 'sk-fake-provider-key',
      models: [{ vendorModelId: 'fake-model', label: 'Fake' }],
      isDefault: true,
    });
    assert.equal(provider.status, 201, JSON.stringify(provider.body));
  } finally {
    await setup.close();
  }
  const { ws, slug } = workspace;
  const headers = bearer(workspace.key);
  let running: TestServer | undefined;
  const runIds: string[] = [];
  const watches: RunWatch[] = [];
  const streamUrl = (server: TestServer, runId: string) =>
    `${server.baseUrl}${ws}/agent-runs/${runId}/stream`;
  return {
    fake,
    ws,
    slug,
    headers,
    streamUrl,
    restart: async () => {
      await running?.close();
      running = await start();
      return running;
    },
    startRun: async (server, body) => {
      const created = await server.request('POST', `${ws}/agent-runs`, { body, headers });
      assert.equal(created.status, 202, JSON.stringify(created.body));
      const runId: string = created.body.runId;
      runIds.push(runId);
      const watch = await watchStream(streamUrl(server, runId), headers, runId);
      watches.push(watch);
      return watch;
    },
    cleanUp: async () => {
      for (const watch of watches.splice(0)) watch.close();
      const server = running;
      try {
        if (server) await Promise.all(runIds.map((runId) => endRun({ server, ws, runId, headers })));
      } finally {
        runIds.length = 0;
        fake.reset();
      }
    },
    close: async () => {
      await running?.close();
      await fake.close();
      await deployment.drop();
    },
  };
}
