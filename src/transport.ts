import type { Config } from './config.ts';
import type { AdmittedRun, RunEventBus, RunQueue, RunSignals } from './engine/ports.ts';
import { InProcessRunEventBus, InProcessRunSignals } from './infra/in-process-bus.ts';
import { InProcessRunQueue } from './infra/in-process-queue.ts';
import type { RedisChannels } from './infra/redis-channels.ts';

/** How runs and their events travel between the service's processes (or within its one process). */
export interface Transport {
  bus: RunEventBus;
  signals: RunSignals;
  queue: RunQueue;
  /** Present in scale-out mode (REDIS_URL). */
  redis: RedisChannels | undefined;
  /** Scale-out: queues again the unfinished runs that no job carries any more. */
  requeueLost: ((runs: readonly AdmittedRun[]) => Promise<string[]>) | undefined;
}

/** Embedded: an in-process queue and bus. Scale-out: BullMQ for runs, Redis pub/sub for events and signals. */
export async function createTransport(config: Config): Promise<Transport> {
  if (!config.redisUrl) {
    return {
      bus: new InProcessRunEventBus(),
      signals: new InProcessRunSignals(),
      queue: new InProcessRunQueue({ concurrency: config.workerConcurrency }),
      redis: undefined,
      requeueLost: undefined,
    };
  }
  const { createScaleOutTransport } = await import('./infra/scale-out-transport.ts');
  const { bus, signals, queue, redis } = createScaleOutTransport({
    redisUrl: config.redisUrl,
    prefix: config.redisPrefix,
    concurrency: config.workerConcurrency,
    leaseMs: config.leaseMs,
  });
  return { bus, signals, queue, redis, requeueLost: (runs) => queue.requeueLost(runs) };
}
