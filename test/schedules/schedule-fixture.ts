import assert from 'node:assert/strict';
import { eventually } from '../support/waits.ts';
import {
  bearer,
  createWorkspaceWithKey,
  startTestServer,
  type TestResponse,
  type TestServer,
  type TestServerOptions,
} from '../support/test-server.ts';

/** A poll fast enough that a schedule every 2 s is fired well within its second. */
export const TEST_POLL_MS = '200';

export interface ScheduleFixture {
  server: TestServer;
  ws: string;
  headers: Record<string, string>;
  keyId: string;
  /** A stored agent on the offline `mock/echo` model. */
  agentId: string;
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  /** Creates a schedule (asserting 201) and answers it. */
  schedule(body: Record<string, unknown>): Promise<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers
  /** Every fired run of the schedule, oldest first, through the paged runs route. */
  runsOf(scheduleId: string): Promise<Array<{ runId: string; scheduledFor: string; createdAt: string }>>;
  /** Waits until the schedule has at least `count` runs; answers them oldest first. */
  runsReach(
    scheduleId: string,
    count: number,
  ): Promise<Array<{ runId: string; scheduledFor: string; createdAt: string }>>;
  close(): Promise<void>;
}

/** The service (embedded or scale-out, as the run says) with workspace `slug`, its key and a mock agent. */
export async function startScheduleFixture(
  slug: string,
  options: TestServerOptions & { workspace?: Record<string, unknown> } = {},
): Promise<ScheduleFixture> {
  const { workspace: workspaceBody, ...serverOptions } = options;
  const server = await startTestServer({
    ...serverOptions,
    env: { AGENT_RUNS_SCHEDULE_POLL_MS: TEST_POLL_MS, ...serverOptions.env },
  });
  try {
    return await fixtureOn(server, slug, workspaceBody);
  } catch (error) {
    await server.close();
    throw error;
  }
}

/** The fixture on a service already started (a multi-process cluster's API URL). */
export async function fixtureOn(
  server: TestServer,
  slug: string,
  workspaceBody: Record<string, unknown> = {},
): Promise<ScheduleFixture> {
  const offering = await server.admin('POST', '/offerings', { provider: 'mock', vendorModelId: 'echo' });
  assert.ok(offering.status === 201 || offering.status === 409, JSON.stringify(offering.body));
  const workspace = await createWorkspaceWithKey(server, slug, workspaceBody);
  const agent = await server.admin('POST', `/workspaces/${slug}/agents`, {
    name: 'Reporter',
    systemPrompt: 'You report.',
    modelId: 'mock/echo',
  });
  assert.equal(agent.status, 201, JSON.stringify(agent.body));
  const headers = bearer(workspace.key);
  const api: ScheduleFixture['api'] = (method, path, body, as = headers) =>
    server.request(method, `${workspace.ws}${path}`, { headers: as, ...(body !== undefined && { body }) });
  const runsOf: ScheduleFixture['runsOf'] = async (scheduleId) => {
    const runs = [];
    let cursor: string | null = null;
    do {
      const page: TestResponse = await api(
        'GET',
        `/schedules/${scheduleId}/runs?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      assert.equal(page.status, 200, JSON.stringify(page.body));
      runs.push(...page.body.runs);
      cursor = page.body.nextCursor;
    } while (cursor);
    return runs.reverse();
  };
  return {
    server,
    ws: workspace.ws,
    headers,
    keyId: workspace.keyId,
    agentId: agent.body.id,
    api,
    schedule: async (body) => {
      const created = await api('POST', '/schedules', { agentId: agent.body.id, ...body });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body;
    },
    runsOf,
    runsReach: async (scheduleId, count) => {
      let runs: Awaited<ReturnType<typeof runsOf>> = [];
      await eventually(
        async () => {
          runs = await runsOf(scheduleId);
          return runs.length >= count;
        },
        `${count} runs of ${scheduleId}`,
        { intervalMs: 200 },
      );
      return runs;
    },
    close: () => server.close(),
  };
}
