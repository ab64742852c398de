import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startRestartableService, type RestartableService } from '../support/restartable-service.ts';
import { readAll } from '../support/sse-client.ts';
import { assertHostCallsInternal, listedToolCalls } from './host-call-visibility.ts';

const LOOKUP = {
  kind: 'local',
  name: 'lookup',
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
};

describe('a seeded plan survives a takeover before the first tool round', { timeout: 60_000 }, () => {
  let service: RestartableService;
  before(async () => {
    service = await startRestartableService({ slug: 'plan-restart' });
  });
  after(() => service.close());
  afterEach(() => service.cleanUp());

  it('the service stops during the first turn: the restarted one resumes the run, and the seeded task_plan is on the stream once', async () => {
    service.fake.enqueue(
      // Held until the first service stops: the turn is cut, and the takeover asks again.
      { text: ['never sent'], holdUntil: new Promise(() => {}) },
      { text: ['Planned and done.'] },
    );
    const first = await service.restart();
    const watch = await service.startRun(first, {
      systemPrompt: 's',
      prompt: 'do the two things',
      plan: { steps: ['First thing', 'Second thing'] },
    });
    await watch.waitForType('task_plan');
    await service.fake.waitForRequests(1);
    const second = await service.restart();
    const frames = await readAll(service.streamUrl(second, watch.runId), service.headers);
    const types = frames.map((frame) => frame.data.type);
    assert.equal(types.at(-1), 'result', types.join(','));
    assert.equal(types.filter((type) => type === 'task_plan').length, 1, 'the seeded plan is announced once');
    assert.equal(frames.at(-1)?.data.data.text, 'Planned and done.');
    assert.deepEqual(
      frames.map((frame) => frame.data.seq),
      frames.map((_, index) => index + 1),
    );
  });

  it('host tool calls are internal after a takeover: a round of update_task_plan and a client call resumes on the restarted service, listing and publishing only the client call, and the model gets both results', async () => {
    service.fake.enqueue(
      {
        toolCalls: [
          {
            id: 'call_plan_1',
            name: 'update_task_plan',
            input: { steps: [{ title: 'Look up a', status: 'in_progress' }] },
          },
          { id: 'call_lookup_1', name: 'lookup', input: { q: 'a' } },
        ],
      },
      { text: ['Found it.'] },
    );
    const first = await service.restart();
    const watch = await service.startRun(first, {
      systemPrompt: 's',
      prompt: 'find a',
      tools: [LOOKUP],
      plan: true,
    });
    await watch.waitForType('local_tool_call');
    const second = await service.restart();
    const path = `${service.ws}/agent-runs/${watch.runId}`;
    const waiting = await second.request('GET', path, { headers: service.headers });
    assert.deepEqual(waiting.body.pendingToolCalls, [
      { toolUseId: 'call_lookup_1', name: 'lookup', kind: 'local' },
    ]);
    const posted = await second.request('POST', `${path}/tool-results`, {
      headers: service.headers,
      body: { toolUseId: 'call_lookup_1', result: 'a letter' },
    });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    const frames = await readAll(service.streamUrl(second, watch.runId), service.headers);

    const types = frames.map((frame) => frame.data.type);
    assert.equal(types.at(-1), 'result', types.join(','));
    assert.equal(frames.at(-1)?.data.data.text, 'Found it.');
    assert.equal(types.filter((type) => type === 'task_plan').length, 1, 'the plan update is announced once');
    assert.equal(
      types.filter((type) => type === 'local_tool_call').length,
      1,
      'the client call is published once',
    );
    assert.deepEqual(listedToolCalls(frames), [['lookup'], []]);
    assertHostCallsInternal(frames, ['call_plan_1']);
    const next = JSON.stringify(service.fake.requests.at(-1)?.body ?? {});
    assert.ok(next.includes('Task plan updated (revision 1).'), 'the host result reaches the model');
    assert.ok(next.includes('a letter'), 'and so does the client result');
    assert.deepEqual(
      frames.map((frame) => frame.data.seq),
      frames.map((_, index) => index + 1),
    );
  });
});
