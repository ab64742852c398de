/** Shared helpers of the runs list and waiting-status suites: a fixture's runs by outcome, and the list. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { RunFixture } from '../support/run-fixture.ts';
import type { TestResponse } from '../support/test-server.ts';
import { snapshotOf } from '../tools/tool-support.ts';

export const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A metadata value unique to one test, so its runs are found among the workspace's others. */
export const tag = () => `t${randomBytes(4).toString('hex')}`;

export interface ListEntry {
  runId: string;
  status: string;
  agentId: string | null;
  sessionId: string | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answer JSON
  [field: string]: any;
}

export const ids = (body: { runs: ListEntry[] }) => body.runs.map((entry) => entry.runId);

/**
 * Replies by the run's prompt, so runs of every outcome can go at once: `please-call-tool` calls
 * get_weather (`toolu_w`) and, once answered, says 'Sunny.'; `please-fail` is refused by the provider
 * (400, not retried); `please-hang` is never answered; any other prompt gets the fake's 'ok'.
 */
export function scriptByPrompt(fixture: RunFixture): void {
  fixture.fake.replyWith((body) => {
    const wire = JSON.stringify(body);
    if (wire.includes('please-call-tool')) {
      return wire.includes('tool_result')
        ? { text: ['Sunny.'] }
        : { toolCalls: [{ id: 'toolu_w', name: 'get_weather', input: { city: 'Paris' } }] };
    }
    if (wire.includes('please-fail')) return { type: 'http-error', status: 400 };
    if (wire.includes('please-hang')) return { type: 'hang' };
    return undefined;
  });
}

export interface RunsListHelpers {
  /** `GET {ws}/agent-runs<query>` with the fixture's key, or `headers`. */
  list(query: string, headers?: Record<string, string>): Promise<TestResponse>;
  /** Starts a run (a `plain` prompt unless `body` says otherwise) and returns its id. */
  run(body: Record<string, unknown>): Promise<string>;
  /** Runs that end successfully, created in order, each tagged `suite: t` (plus `extra`). */
  endedRuns(t: string, count: number, extra?: Record<string, unknown>): Promise<string[]>;
  /** The run's snapshot status. */
  statusOf(runId: string): Promise<string>;
}

/** Helpers on the suite's fixture (`fixtureOf` is read at each call: suites start it in `before`). */
export function runsListHelpers(fixtureOf: () => RunFixture): RunsListHelpers {
  const run = async (body: Record<string, unknown>) => {
    const created = await fixtureOf().createRun({ systemPrompt: 's', prompt: 'plain', ...body });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    return created.body.runId as string;
  };
  return {
    list: (query, headers) => {
      const fixture = fixtureOf();
      return fixture.server.request('GET', `${fixture.ws}/agent-runs${query}`, {
        headers: headers ?? fixture.headers,
      });
    },
    run,
    endedRuns: async (t, count, extra = {}) => {
      const created: string[] = [];
      for (let index = 0; index < count; index++) {
        const runId = await run({ metadata: { suite: t, n: String(index) }, ...extra });
        await (
          await fixtureOf().watchRun(runId)
        ).ended;
        created.push(runId);
      }
      return created;
    },
    statusOf: async (runId) => (await snapshotOf(fixtureOf(), runId)).body.status as string,
  };
}
