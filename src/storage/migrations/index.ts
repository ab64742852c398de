import type { Migration, MigrationProvider } from 'kysely/migration';
import { foundation } from './0001-foundation.ts';

/** Every migration in order; names sort lexically, so keep the numeric prefix. */
const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': foundation,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};
