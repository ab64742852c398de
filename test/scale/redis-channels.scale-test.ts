import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { RedisChannels } from '../../src/infra/redis-channels.ts';
import { TEST_REDIS_URL } from '../support/engines.ts';
import { deferred, WAIT_CAP_MS, withCap } from '../support/waits.ts';

describe('Redis channels', () => {
  let channels: RedisChannels;
  before(() => {
    channels = new RedisChannels(TEST_REDIS_URL);
  });
  after(() => channels.close());

  it('a second listener added while the SUBSCRIBE is on its way is ready only when the subscription is', async () => {
    const channel = `ar-test-${randomBytes(5).toString('hex')}:events`;
    const first: string[] = [];
    const second: string[] = [];
    const secondGotOne = deferred();
    const a = channels.listen(channel, (message) => first.push(message));
    const b = channels.listen(channel, (message) => {
      second.push(message);
      secondGotOne.resolve();
    });
    await b.ready;
    await channels.publish(channel, 'm1');
    await withCap(secondGotOne.promise, WAIT_CAP_MS, () => 'the second listener got no message');
    assert.deepEqual(second, ['m1'], 'published after ready: received');
    assert.deepEqual(first, ['m1']);
    a.stop();
    b.stop();
  });
});
