import { randomBytes } from 'node:crypto';
import type { ResourceLimits } from 'node:worker_threads';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/config.ts';
import type { ModelPort } from '../../src/engine/ports.ts';
import type { EngineOptions } from '../../src/main.ts';
import type { Engine } from '../../src/storage/database.ts';
import { SCALE_OUT } from './deployment.ts';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from './engines.ts';
import { serveOn, type TestServer } from './served-service.ts';
import { prepareWorkerChild, startWorkerChild } from './worker-child.ts';

export interface TestServerOptions {
  /** Starts the service embedded on a fresh database of this engine, whatever the run's deployment. */
  storageEngine?: Engine;
  /** Extra environment for loadConfig (provider keys, …), for every process of the deployment. */
  env?: Record<string, string>;
  dev?: boolean;
  engine?: EngineOptions;
  modelThreadResourceLimits?: ResourceLimits;
  /**
   * The model port the service's workers call models through (the configured one otherwise). The
   * worker must be in the test's process: not on the scale-out deployment.
   */
  models?: ModelPort;
  /** The service's log lines (JSON, level info and above, the worker's too); silent otherwise. */
  logLines?: string[];
}

/**
 * A deployment's database (and, scale-out, its Redis keys) that services start on in turn, as a
 * restart would: each picks up the unfinished runs of the one before.
 */
export interface TestDeployment {
  readonly kind: 'embedded' | 'scale-out';
  readonly adminToken: string;
  /** Starts the service; closing the server stops its processes and keeps the data. */
  start(): Promise<TestServer>;
  /** Drops the database and the Redis keys (every service started on them must be closed). */
  drop(): Promise<void>;
}

export async function prepareDeployment(options: TestServerOptions = {}): Promise<TestDeployment> {
  const scaleOut = SCALE_OUT && options.storageEngine === undefined;
  if (scaleOut && options.models) {
    throw new Error('a test ModelPort cannot reach the worker process of the scale-out deployment');
  }
  if (scaleOut) prepareWorkerChild();
  const engine = scaleOut ? 'postgres' : (options.storageEngine ?? 'sqlite');
  // The service migrates its database at start; on PostgreSQL a clone of the migrated template is quicker.
  const database: TestDatabase = await createTestDatabase(engine, { migrated: engine === 'postgres' });
  const adminToken = randomBytes(24).toString('base64url');
  const env: Record<string, string> = {
    PORT: '0',
    DATABASE_URL: database.config.url,
    AGENT_RUNS_ADMIN_TOKEN: adminToken,
    AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
    ...options.env,
  };
  const serviceOptions = {
    dev: options.dev ?? false,
    ...(options.engine && { engine: options.engine }),
    ...(options.modelThreadResourceLimits && {
      modelThreadResourceLimits: options.modelThreadResourceLimits,
    }),
  };
  if (!scaleOut) {
    const config = loadConfig(env);
    return {
      kind: 'embedded',
      adminToken,
      start: () =>
        serveOn(config, adminToken, {
          ...serviceOptions,
          ...(options.models && { models: options.models }),
          ...(options.logLines && { logLines: options.logLines }),
        }),
      drop: () => database.drop(),
    };
  }
  const redisPrefix = `ar-t-${randomBytes(5).toString('hex')}`;
  Object.assign(env, { REDIS_URL: TEST_REDIS_URL, AGENT_RUNS_REDIS_PREFIX: redisPrefix });
  const apiConfig = loadConfig({ ...env, AGENT_RUNS_ROLE: 'api' });
  return {
    kind: 'scale-out',
    adminToken,
    start: async () => {
      const startApi = () =>
        serveOn(apiConfig, adminToken, {
          ...serviceOptions,
          ...(options.logLines && { logLines: options.logLines }),
        });
      // The API first: it applies the migrations the worker then finds done.
      const api = await startApi();
      const replicas: TestServer[] = [];
      try {
        const worker = await startWorkerChild({ env, ...serviceOptions }, options.logLines);
        let replica: Promise<TestServer> | undefined;
        return {
          ...api,
          workerMetricsUrl: worker.metricsUrl,
          otherReplica: () => {
            replica ??= startApi().then((started) => {
              replicas.push(started);
              return started;
            });
            return replica;
          },
          close: async () => {
            try {
              await Promise.all([api, ...replicas].map((server) => server.close()));
            } finally {
              await worker.stop();
            }
          },
        };
      } catch (error) {
        await api.close();
        throw error;
      }
    },
    drop: () => dropScaleOut(database, redisPrefix),
  };
}

async function dropScaleOut(database: TestDatabase, redisPrefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    for await (const keys of redis.scanStream({ match: `${redisPrefix}:*`, count: 1000 })) {
      if ((keys as string[]).length > 0) await redis.unlink(...(keys as string[]));
    }
  } finally {
    redis.disconnect();
    await database.drop();
  }
}
