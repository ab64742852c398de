import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { RedisChannels } from '../../src/infra/redis-channels.ts';
import { TEST_REDIS_URL } from '../support/engines.ts';

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
    const a = channels.listen(channel, (message) => first.push(message));
    const b = channels.listen(channel, (message) => second.push(message));
    await b.ready;
    await channels.publish(channel, 'm1');
    for (let waited = 0; second.length === 0 && waited < 2000; waited += 10) await sleep(10);
    assert.deepEqual(second, ['m1'], 'published after ready: received');
    assert.deepEqual(first, ['m1']);
    a.stop();
    b.stop();
  });
});
