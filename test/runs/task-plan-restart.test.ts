import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startRestartableService, type RestartableService } from '../support/restartable-service.ts';
import { readAll } from '../support/sse-client.ts';

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
    const types = frames.map((frame) => frame.data.type as string);
    assert.equal(types.at(-1), 'result', types.join(','));
    assert.equal(types.filter((type) => type === 'task_plan').length, 1, 'the seeded plan is announced once');
    assert.equal(frames.at(-1)?.data.data.text, 'Planned and done.');
    assert.deepEqual(
      frames.map((frame) => frame.data.seq),
      frames.map((_, index) => index + 1),
    );
  });
});
