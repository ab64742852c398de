import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StoreUnavailableError } from '../../src/domain/errors.ts';
import { FlexibleRateCounters } from '../../src/infra/rate-limit-counters.ts';
import { RedisChannels } from '../../src/infra/redis-channels.ts';
import { RedisRunSignals } from '../../src/infra/redis-bus.ts';
import { freePort } from '../scale/private-servers.ts';

/** What the Redis adapters do while Redis cannot be reached (here: nothing listens on the port). */
describe('Redis unreachable', () => {
  let channels: RedisChannels;

  before(async () => {
    channels = new RedisChannels(`redis://127.0.0.1:${await freePort()}`);
  });
  after(() => channels.close());

  it('a ping fails at once with StoreUnavailableError (readiness says unavailable without waiting)', async () => {
    const started = Date.now();
    await assert.rejects(channels.ping(), StoreUnavailableError);
    assert.ok(Date.now() - started < 1000);
  });

  it('rate limits are counted in memory (the insurance limiter) instead of failing or waiting', async () => {
    const counters = new FlexibleRateCounters({ kind: 'redis', client: channels.client, prefix: 'test' }, 60);
    const first = await counters.consume('ws:key:run_start', 2);
    const second = await counters.consume('ws:key:run_start', 2);
    const third = await counters.consume('ws:key:run_start', 2);
    assert.deepEqual(
      [first.allowed, second.allowed, third.allowed],
      [true, true, false],
      'the limit still applies',
    );
  });

  it('a publish fails at once with StoreUnavailableError; a worker listening for signals goes on after a second', async () => {
    await assert.rejects(channels.publish('c', 'm'), StoreUnavailableError);
    const signals = new RedisRunSignals(channels, 'test');
    const started = Date.now();
    const stop = await signals.listen('run_1', () => undefined);
    assert.ok(Date.now() - started < 5000);
    stop();
  });
});
