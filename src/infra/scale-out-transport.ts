import { BullmqRunQueue, type BullmqRunQueueOptions } from './bullmq-queue.ts';
import { RedisRunEventBus, RedisRunSignals } from './redis-bus.ts';
import { RedisChannels } from './redis-channels.ts';

/**
 * The scale-out transport: BullMQ for runs, Redis pub/sub for live events and signals. The composition
 * root imports this module only when REDIS_URL is set, so an embedded service never loads the Redis
 * clients (about 28 MiB of RSS).
 */
export function createScaleOutTransport(options: BullmqRunQueueOptions) {
  const redis = new RedisChannels(options.redisUrl);
  const queue = new BullmqRunQueue(options);
  return {
    bus: new RedisRunEventBus(redis, options.prefix),
    signals: new RedisRunSignals(redis, options.prefix),
    queue,
    redis,
  };
}
