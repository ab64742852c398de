import type { Config } from '../config.ts';
import type { ModelCatalog } from '../providers/model-catalog.ts';
import type { Storage } from '../storage/database.ts';
import type { Repositories } from '../storage/repositories/index.ts';
import type { SecretBox } from '../storage/secret-box.ts';

/** Everything route handlers use, built once by the composition root and injected into the app. */
export interface AppResources {
  config: Config;
  storage: Storage;
  repos: Repositories;
  catalog: ModelCatalog;
  secretBox: SecretBox;
  /** Admin token that the in-process CLI uses when the operator set none. */
  adminToken: string | undefined;
}
