import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startFakeOpenAIChat } from '../fakes/fake-openai-chat.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { mostInFlight, runLabelsInOrder } from '../support/provider-load.ts';
import { startRunFixture, types, type RunFixture } from '../support/run-fixture.ts';
import { readAll } from '../support/sse-client.ts';
import { deferred } from '../support/waits.ts';
import { bearer, createWorkspaceWithKey } from '../support/test-server.ts';
import { postToolResult, WEATHER_TOOL } from '../tools/tool-support.ts';

async function withFixture<T>(
  options: Parameters<typeof startRunFixture>[1],
  test: (fixture: RunFixture) => Promise<T>,
): Promise<T> {
  const fixture = await startRunFixture('openai-chat', options);
  try {
    return await test(fixture);
  } finally {
    await fixture.close();
  }
}

describe('workers shared fairly', () => {
  it(
    'a run waiting for a client tool result holds no worker slot: with one slot, another run completes while it waits',
    { timeout: 60_000 },
    async () => {
      await withFixture({ env: { AGENT_RUNS_WORKER_CONCURRENCY: '1' } }, async (fixture) => {
        fixture.fake.enqueue(
          { toolCalls: [{ id: 'call_1', name: 'get_weather', input: { city: 'Paris' } }] },
          { text: ['The other run is done.'] },
          { text: ['Sunny in Paris.'] },
        );
        const waiting = await fixture.startRun({
          systemPrompt: 's',
          prompt: 'weather in Paris?',
          tools: [WEATHER_TOOL],
          localToolTimeoutMs: 600_000,
        });
        try {
          await waiting.waitForType('local_tool_call');
          // The only worker slot is free again: a run with no tools runs to its end meanwhile.
          const other = await fixture.runToEnd({ systemPrompt: 's', prompt: 'hello' });
          assert.deepEqual(types(other.frames), ['assistant_delta', 'assistant_message', 'result']);
          assert.equal(other.frames.at(-1)?.data.data.text, 'The other run is done.');
          assert.ok(
            !waiting.frames.some((frame) => frame.data.type === 'result'),
            'the first run still waits',
          );

          const posted = await postToolResult(fixture, waiting.runId, {
            toolUseId: 'call_1',
            result: '21C and sunny',
          });
          assert.equal(posted.status, 200);
          const frames = await waiting.ended;
          assert.deepEqual(types(frames).slice(-4), [
            'local_tool_result_in',
            'assistant_delta',
            'assistant_message',
            'result',
          ]);
          assert.equal(frames.at(-1)?.data.data.text, 'Sunny in Paris.');
          assert.equal(frames.at(-1)?.data.data.turns, 2);
        } finally {
          waiting.close();
        }
      });
    },
  );

  it(
    'maxConcurrentRuns: runs past the limit wait queued (every one accepted) and start in the order they came as slots free up',
    { timeout: 60_000 },
    async () => {
      await withFixture({}, async (fixture) => {
        const limitTo = async (maxConcurrentRuns: number) => {
          const patched = await fixture.server.admin('PATCH', `/workspaces/${fixture.slug}`, {
            maxConcurrentRuns,
          });
          assert.equal(patched.status, 200);
          assert.equal(patched.body.maxConcurrentRuns, maxConcurrentRuns);
        };
        /** Creates `count` runs (each must be accepted), then reads each to its result. */
        const runAll = async (count: number) => {
          const runIds: string[] = [];
          for (let index = 0; index < count; index++) {
            const created = await fixture.createRun({ systemPrompt: 's', prompt: `run ${index}` });
            assert.equal(created.status, 202, 'past the limit a run is accepted, not refused');
            runIds.push(created.body.runId);
          }
          for (const runId of runIds) {
            const frames = await readAll(fixture.streamUrl(runId), fixture.headers);
            assert.equal(frames.at(-1)?.data.type, 'result');
          }
        };
        // One at a time, the runs reach the provider in the order they were admitted.
        await limitTo(1);
        fixture.fake.enqueue({ text: ['done'], firstChunkDelayMs: 100 });
        await runAll(4);
        assert.deepEqual(runLabelsInOrder(fixture.fake.requests), ['run 0', 'run 1', 'run 2', 'run 3']);
        assert.equal(mostInFlight(fixture.fake.requests), 1);

        fixture.fake.reset();
        await limitTo(2);
        fixture.fake.enqueue({ text: ['done'], firstChunkDelayMs: 150 });
        await runAll(6);
        assert.equal(mostInFlight(fixture.fake.requests), 2, 'never more than two at once, two when queued');
      });
    },
  );

  it(
    'a raised maxConcurrentRuns admits the waiting runs at the next dispatch sweep, while the runs in flight go on',
    { timeout: 60_000 },
    async () => {
      await withFixture({ engine: { dispatchSweepMs: 100 } }, async (fixture) => {
        await fixture.server.admin('PATCH', `/workspaces/${fixture.slug}`, { maxConcurrentRuns: 1 });
        const release = deferred();
        fixture.fake.enqueue({ text: ['done'], holdUntil: release.promise });
        const runIds: string[] = [];
        for (let index = 0; index < 3; index++) {
          const created = await fixture.createRun({ systemPrompt: 's', prompt: `run ${index}` });
          runIds.push(created.body.runId);
        }
        await fixture.fake.waitForRequests(1);
        const raised = await fixture.server.admin('PATCH', `/workspaces/${fixture.slug}`, {
          maxConcurrentRuns: 3,
        });
        assert.equal(raised.body.maxConcurrentRuns, 3);
        // The first run still holds its slot (its reply is held): the others reach the provider anyway.
        await fixture.fake.waitForRequests(3);
        assert.equal(mostInFlight(fixture.fake.requests), 3);
        release.resolve();
        for (const runId of runIds) {
          const frames = await readAll(fixture.streamUrl(runId), fixture.headers);
          assert.equal(frames.at(-1)?.data.type, 'result');
        }
      });
    },
  );

  it(
    "one workspace with 500 queued runs does not delay another workspace's run by more than a turn",
    { timeout: 120_000 },
    async () => {
      let otherFake: FakeProviderServer | undefined;
      await withFixture(
        { env: { AGENT_RUNS_WORKER_CONCURRENCY: '8' }, engine: { shutdownGraceMs: 100 } },
        async (busy) => {
          // The busy workspace may run 4 at once; each of its turns takes 5 s.
          await busy.server.admin('PATCH', `/workspaces/${busy.slug}`, { maxConcurrentRuns: 4 });
          busy.fake.enqueue({ text: ['busy'], firstChunkDelayMs: 5000 });
          // Created past the fixture's createRun, which would have its cleanup end the 500 runs one
          // by one over HTTP (half a minute): closing the service and dropping its database ends them.
          const createBusyRun = (prompt: string) =>
            busy.server.request('POST', `${busy.ws}/agent-runs`, {
              body: { systemPrompt: 's', prompt },
              headers: busy.headers,
            });
          for (let started = 0; started < 500; started += 25) {
            const batch = Array.from({ length: 25 }, (_, index) => createBusyRun(`busy ${started + index}`));
            for (const created of await Promise.all(batch)) assert.equal(created.status, 202);
          }

          otherFake = await startFakeOpenAIChat([{ text: ['quick'] }]);
          const other = await createWorkspaceWithKey(busy.server, 'other');
          const provider = await busy.server.admin('POST', '/workspaces/other/providers', {
            provider: 'fakeopenai',
            api: 'openai-chat',
            baseUrl: otherFake.url,
            apiKey: 'sk-fake',
            models: [{ vendorModelId: 'fake-model' }],
            isDefault: true,
          });
          assert.equal(provider.status, 201);
          const createdAt = Date.now();
          const created = await busy.server.request('POST', `${other.ws}/agent-runs`, {
            body: { systemPrompt: 's', prompt: 'me first?' },
            headers: bearer(other.key),
          });
          assert.equal(created.status, 202);
          const frames = await readAll(
            `${busy.server.baseUrl}${other.ws}/agent-runs/${created.body.runId}/stream`,
            bearer(other.key),
          );
          const doneAt = Date.now();
          assert.equal(frames.at(-1)?.data.data.text, 'quick');
          // Only the busy runs already in flight could finish meanwhile: the other run did not queue
          // behind the 500 (it would have waited for about 125 of their 5 s turns).
          const finishedMeanwhile = busy.fake.requests.filter(
            (request) =>
              request.respondedAt !== undefined &&
              request.respondedAt >= createdAt &&
              request.respondedAt <= doneAt,
          );
          assert.ok(
            finishedMeanwhile.length <= 4,
            `${finishedMeanwhile.length} busy runs finished meanwhile`,
          );
          assert.ok(busy.fake.requests.length < 100, 'the busy workspace still has most of its runs queued');
        },
      );
      await otherFake?.close();
    },
  );
});
