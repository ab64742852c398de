import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { buildApp } from './http/app.ts';
import type { AppResources } from './http/resources.ts';
import { builtinOfferings } from './providers/builtin-offerings.ts';
import { ModelCatalog } from './providers/model-catalog.ts';
import { resolveSecret } from './secret.ts';
import { migrateToLatest, openStorage, type OpenStorageOptions } from './storage/database.ts';
import { createRepositories } from './storage/repositories/index.ts';
import { SecretBox } from './storage/secret-box.ts';

export interface ServiceOptions {
  logger: Logger;
  /** Dev mode: the offline mock provider is the default model when no provider key is set. */
  dev: boolean;
  /** Build the admin routes even without AGENT_RUNS_ADMIN_TOKEN, under a random token (the in-process CLI). */
  internalAdmin?: boolean;
  storage?: OpenStorageOptions;
}

export interface Service {
  app: FastifyInstance;
  resources: AppResources;
  close(): Promise<void>;
}

/** The composition root: the only place that constructs adapters and wires them together. */
export async function createService(config: Config, options: ServiceOptions): Promise<Service> {
  const { secret, generatedAt } = resolveSecret(config);
  if (generatedAt && !options.dev) {
    options.logger.warn(
      { path: generatedAt },
      'AGENT_RUNS_SECRET is not set: using a generated secret kept beside the database',
    );
  }
  const storage = openStorage(config.storage, options.storage ?? {});
  try {
    const applied = await migrateToLatest(storage);
    if (applied.length > 0) options.logger.info({ migrations: applied }, 'applied database migrations');
    const repos = createRepositories(storage.db);
    const secretBox = new SecretBox(secret);
    const catalog = new ModelCatalog({
      offerings: repos.offerings,
      workspaceProviders: repos.workspaceProviders,
      builtin: builtinOfferings(config, { devMock: options.dev }),
      secretBox,
    });
    const adminToken =
      config.adminToken ?? (options.internalAdmin ? randomBytes(24).toString('base64url') : undefined);
    const resources: AppResources = { config, storage, repos, catalog, secretBox, adminToken };
    const app = await buildApp(resources, { logger: options.logger });
    return {
      app,
      resources,
      close: async () => {
        await app.close();
        await storage.close();
      },
    };
  } catch (error) {
    await storage.close();
    throw error;
  }
}
