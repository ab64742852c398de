import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { startRestartableService, type RestartableService } from '../support/restartable-service.ts';
import { readAll, type SseFrame } from '../support/sse-client.ts';
import type { TestServer } from '../support/test-server.ts';
import { ofType, toolResultBlocks, toolResultText, WEATHER_TOOL } from './tool-support.ts';

const logLines: string[] = [];

const calls = (frames: readonly SseFrame[]) =>
  ofType(frames, 'local_tool_call').map((frame) => frame.data.data.toolUseId);
const echoes = (frames: readonly SseFrame[]) =>
  ofType(frames, 'local_tool_result_in').map((frame) => [frame.data.data.toolUseId, frame.data.data.output]);

describe(
  'a worker restart while a run waits for a client tool result loses nothing',
  { timeout: 120_000 },
  () => {
    let service: RestartableService;
    let fake: FakeProviderServer;
    let ws: string;
    let headers: Record<string, string>;

    before(async () => {
      service = await startRestartableService({ slug: 'restart', logLines });
      ({ fake, ws, headers } = service);
    });
    after(() => service.close());
    afterEach(() => service.cleanUp());

    const restart = () => service.restart();
    const streamUrl = (server: TestServer, runId: string) => service.streamUrl(server, runId);
    const startRun = (server: TestServer, body: Record<string, unknown>) => service.startRun(server, body);
    const post = (server: TestServer, runId: string, body: unknown) =>
      server.request('POST', `${ws}/agent-runs/${runId}/tool-results`, { body, headers });
    it('the result posted to the restarted service is accepted, the stream continues to the final result, no call is published twice', async () => {
      fake.enqueue(
        { toolCalls: [{ id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
        { text: ['Sunny.'] },
      );
      const first = await restart();
      const before = await startRun(first, { systemPrompt: 's', prompt: 'weather?', tools: [WEATHER_TOOL] });
      const { runId } = before;
      const call = await before.waitForType('local_tool_call');

      const second = await restart();
      const failures = logLines.filter((line) => /"level":50/.test(line));
      assert.deepEqual(failures, [], 'a run handed over at shutdown is not logged as a failure');
      const seenBefore = await before.ended;
      assert.equal(
        seenBefore.at(-1)?.data.type,
        'local_tool_call',
        'the first service ended without a terminal event',
      );
      const statusOn = async (server: TestServer) =>
        (await server.request('GET', `${ws}/agent-runs/${runId}`, { headers })).body.status;
      assert.equal(await statusOn(second), 'waiting', 'still waiting for its client after the restart');
      const posted = await post(second, runId, { toolUseId: 'toolu_1', result: '21C and sunny' });
      assert.equal(posted.status, 200, JSON.stringify(posted.body));

      const continued = await readAll(`${streamUrl(second, runId)}?lastSeq=${call.data.seq}`, headers);
      assert.deepEqual(
        continued.map((frame) => frame.data.type),
        ['local_tool_result_in', 'assistant_delta', 'assistant_message', 'result'],
      );
      assert.equal(continued.at(-1)?.data.data.text, 'Sunny.');
      assert.equal(continued.at(-1)?.data.data.turns, 2, 'usage of the turn before the restart is kept');
      assert.equal(await statusOn(second), 'succeeded');

      const log = await readAll(streamUrl(second, runId), headers);
      assert.deepEqual(calls(log), ['toolu_1']);
      assert.deepEqual(echoes(log), [['toolu_1', '21C and sunny']]);
      assert.deepEqual(
        log.map((frame) => frame.data.seq),
        log.map((_, index) => index + 1),
        'seq continues without gaps or repeats',
      );
      assert.equal(fake.requests.length, 2);
      const [block] = toolResultBlocks(fake.requests[1]);
      assert.equal(block?.tool_use_id, 'toolu_1');
      assert.equal(toolResultText(block), '21C and sunny');

      const duplicate = await post(second, runId, { toolUseId: 'toolu_1', result: 'again' });
      assert.equal(duplicate.status, 409);
      assert.equal(duplicate.body.error, 'run_terminal');
    });

    it('the restarted service runs the round as checkpointed: a call within its tool budget is not counted again', async () => {
      fake.enqueue(
        { toolCalls: [{ id: 'toolu_budget', name: 'get_weather', input: { city: 'Lima' } }] },
        { text: ['Mild.'] },
      );
      const first = await restart();
      const before = await startRun(first, {
        systemPrompt: 's',
        prompt: 'weather?',
        tools: [WEATHER_TOOL],
        toolBudgets: { get_weather: { maxCalls: 1 } },
      });
      const { runId } = before;
      await before.waitForType('local_tool_call');

      const second = await restart();
      await before.ended;
      assert.equal((await post(second, runId, { toolUseId: 'toolu_budget', result: 'mild' })).status, 200);

      const log = await readAll(streamUrl(second, runId), headers);
      assert.equal(log.at(-1)?.data.type, 'result');
      assert.deepEqual(ofType(log, 'tool_budget_exceeded'), [], 'the call was counted once');
      assert.deepEqual(echoes(log), [['toolu_budget', 'mild']]);
      assert.deepEqual(toolResultBlocks(fake.requests[1]).map(toolResultText), ['mild']);
    });

    it('a round interrupted after its first answer resumes with the second call, each call and answer appearing once', async () => {
      fake.enqueue(
        {
          toolCalls: [
            { id: 'toolu_a', name: 'get_weather', input: { city: 'Oslo' } },
            { id: 'toolu_b', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        { text: ['Cold and warm.'] },
      );
      const first = await restart();
      const before = await startRun(first, {
        systemPrompt: 's',
        prompt: 'two cities',
        tools: [WEATHER_TOOL],
      });
      const { runId } = before;
      await before.waitForType('local_tool_call');
      assert.equal((await post(first, runId, { toolUseId: 'toolu_a', result: 'cold' })).status, 200);
      await before.waitFor(
        (frame) => frame.data.type === 'local_tool_call' && frame.data.data.toolUseId === 'toolu_b',
      );

      const second = await restart();
      await before.ended;
      const answered = await post(second, runId, { toolUseId: 'toolu_a', result: 'cold again' });
      assert.equal(answered.status, 404, 'the first call stays answered across the restart');
      assert.equal(answered.body.error, 'unknown_tool_use');
      assert.equal((await post(second, runId, { toolUseId: 'toolu_b', result: 'warm' })).status, 200);

      const log = await readAll(streamUrl(second, runId), headers);
      assert.equal(log.at(-1)?.data.type, 'result');
      assert.equal(log.at(-1)?.data.data.text, 'Cold and warm.');
      assert.deepEqual(calls(log), ['toolu_a', 'toolu_b']);
      assert.deepEqual(echoes(log), [
        ['toolu_a', 'cold'],
        ['toolu_b', 'warm'],
      ]);
      assert.equal(fake.requests.length, 2);
      assert.deepEqual(toolResultBlocks(fake.requests[1]).map(toolResultText), ['cold', 'warm']);
    });
  },
);
