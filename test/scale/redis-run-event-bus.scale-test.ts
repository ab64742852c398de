import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sseFrame } from '../../src/domain/sse-frame.ts';
import type { PublishedEvent } from '../../src/engine/ports.ts';
import { RedisRunEventBus } from '../../src/infra/redis-bus.ts';
import { RedisChannels } from '../../src/infra/redis-channels.ts';
import { TEST_REDIS_URL } from '../support/engines.ts';
import { deferred, WAIT_CAP_MS, withCap } from '../support/waits.ts';

function published(seq: number, text: string): PublishedEvent {
  const dataJson = JSON.stringify({ text, quoted: 'a "b"\n' });
  return { seq, type: 'assistant_delta', dataJson, frame: sseFrame(seq, 'assistant_delta', dataJson) };
}

describe('Redis run-event bus: one message per commit of a run, and the one-event message still read', () => {
  let channels: RedisChannels;
  let prefix: string;
  before(() => {
    channels = new RedisChannels(TEST_REDIS_URL);
    prefix = `ar-test-${randomBytes(5).toString('hex')}`;
  });
  after(() => channels.close());

  it('a batch goes as ONE message; a subscriber gets the old one-event message, the batch and a single event, in order', async () => {
    const bus = new RedisRunEventBus(channels, prefix);
    const runId = `run_${randomBytes(5).toString('hex')}`;
    const events = [1, 2, 3, 4, 5].map((seq) => published(seq, `t${seq}`));
    const oldMessage = ({ seq, type, frame }: PublishedEvent) => ({ seq, type, frame });

    const received: PublishedEvent[] = [];
    const all = deferred();
    const unsubscribe = await bus.subscribe(runId, (event) => {
      received.push(event);
      if (received.length === events.length) all.resolve();
    });
    // What is on the wire, read beside the bus's subscriber.
    const messages: string[] = [];
    const raw = channels.listen(`${prefix}:events:${runId}`, (message) => messages.push(message));
    await raw.ready;

    // The message an older publisher sends for each event (a rolling upgrade runs both side by side).
    await channels.publish(
      `${prefix}:events:${runId}`,
      JSON.stringify(oldMessage(events[0] as PublishedEvent)),
    );
    bus.publish(runId, events.slice(1, 4));
    bus.publish(runId, events.slice(4));
    await withCap(all.promise, WAIT_CAP_MS, () => `got ${received.map((event) => event.seq).join(',')}`);

    assert.deepEqual(received, events, 'every event in seq order, its data taken back out of its frame');
    assert.equal(messages.length, 3, 'one message for the batch of three, one for the single event');
    assert.deepEqual(JSON.parse(messages[1] ?? ''), { events: events.slice(1, 4).map(oldMessage) });
    assert.deepEqual(
      JSON.parse(messages[2] ?? ''),
      oldMessage(events[4] as PublishedEvent),
      'a single event goes as the one-event message, which older subscribers read too',
    );
    unsubscribe();
    raw.stop();
  });
});
