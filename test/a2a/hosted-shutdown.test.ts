import assert from 'node:assert/strict';
import { it } from 'node:test';
import { startRunFixture } from '../support/run-fixture.ts';
import { deferred } from '../support/waits.ts';
import { a2aPeer, collectStream, createAgent, endpointPath, rpcError, textMessage } from './a2a-support.ts';

it(
  'a service that stops ends its open A2A streams and answers a waiting message/send with an error naming the run (which goes on)',
  { timeout: 60_000 },
  async () => {
    const fixture = await startRunFixture('anthropic-messages');
    const hold = deferred();
    try {
      await createAgent(fixture.server, fixture.slug, { name: 'Slow', systemPrompt: 's' });
      const peer = await a2aPeer(
        `${fixture.server.baseUrl}${endpointPath(fixture.slug, 'slow')}`,
        fixture.headers,
      );
      fixture.fake.enqueue(
        { text: ['held'], holdUntil: hold.promise },
        { text: ['held'], holdUntil: hold.promise },
      );
      const stream = peer.client.sendMessageStream(textMessage('streamed'));
      const first = await stream.next();
      assert.equal(first.done, false);
      const sent = rpcError(peer.client.sendMessage(textMessage('sent')));
      await fixture.fake.waitForRequests(2);

      const closing = fixture.server.close();
      assert.deepEqual(await collectStream(stream), [], 'the stream ended with nothing more');
      const failure = await sent;
      assert.equal(failure.code, -32603);
      assert.equal(failure.data.error, 'unavailable');
      assert.match(failure.data.runId, /^run_/);
      hold.resolve();
      await closing;
    } finally {
      hold.resolve();
      await fixture.fake.close();
    }
  },
);
