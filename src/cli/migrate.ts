import { loadConfig } from '../config.ts';
import type { CliIo } from './cli-io.ts';
import { migrateToLatest, openStorage } from '../storage/database.ts';

/** `agent-runs migrate`: applies pending migrations and exits. */
export async function migrate(io: CliIo): Promise<void> {
  const config = loadConfig(io.env);
  const storage = openStorage(config.storage);
  try {
    const applied = await migrateToLatest(storage);
    io.stdout.write(
      applied.length > 0
        ? `applied ${applied.length} migration(s): ${applied.join(', ')}\n`
        : 'database is up to date\n',
    );
  } finally {
    await storage.close();
  }
}
