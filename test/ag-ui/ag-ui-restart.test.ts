import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { createAgent } from '../a2a/a2a-support.ts';
import { startRestartableService, type RestartableService } from '../support/restartable-service.ts';
import { eventsOf, frontEnd, runOnce, userMessage } from './ag-ui-support.ts';

describe(
  'AG-UI endpoint (extensions §11): a thread survives a restart of the service',
  { timeout: 120_000 },
  () => {
    let service: RestartableService;
    before(async () => {
      service = await startRestartableService({ slug: 'agui-restart' });
    });
    after(() => service.close());
    afterEach(() => service.cleanUp());

    it('a run waiting for a frontend tool across a restart takes the answer from the next input on the new service and streams its continuation once', async () => {
      service.fake.enqueue(
        { toolCalls: [{ id: 'toolu_r1', name: 'confirm', input: { question: 'Go?' } }] },
        { text: ['Gone.'] },
      );
      const first = await service.restart();
      await createAgent(first, service.slug, { name: 'Helper', systemPrompt: 's' });
      const tools = [{ name: 'confirm', description: 'Ask the user.' }];
      const before = frontEnd(first, service.slug, 'helper', service.headers);
      before.messages = [userMessage('Leave?')];
      const waiting = await runOnce(before, { tools });
      assert.deepEqual(eventsOf(waiting, 'RUN_FINISHED')[0]?.outcome, {
        type: 'success',
        pendingToolCallIds: ['toolu_r1'],
      });
      const runId = eventsOf(waiting, 'RUN_STARTED')[0]?.rawEvent.runId as string;

      const second = await service.restart();
      const after = frontEnd(second, service.slug, 'helper', service.headers, before.threadId);
      after.messages = [
        ...before.messages,
        { id: crypto.randomUUID(), role: 'tool', toolCallId: 'toolu_r1', content: 'yes' },
      ];
      const continued = await runOnce(after, { tools });
      assert.equal(continued.error, undefined);
      assert.equal(eventsOf(continued, 'RUN_STARTED')[0]?.rawEvent.runId, runId);
      assert.deepEqual(continued.types, [
        'RUN_STARTED',
        'TEXT_MESSAGE_START',
        'TEXT_MESSAGE_CONTENT',
        'TEXT_MESSAGE_END',
        'RUN_FINISHED',
      ]);
      assert.equal(eventsOf(continued, 'RUN_FINISHED')[0]?.result, 'Gone.');
      assert.equal(service.fake.requests.length, 2, 'the model was called once per turn, none repeated');
    });
  },
);
