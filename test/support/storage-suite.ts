import { after, before, describe } from 'node:test';
import type { Workspace } from '../../src/domain/workspace.ts';
import type { WorkspaceStore } from '../../src/engine/ports.ts';
import type { Engine, Storage } from '../../src/storage/database.ts';
import { createRepositories, type Repositories } from '../../src/storage/repositories/index.ts';
import { ENGINES, openTestStorage } from './engines.ts';

/** What a suite of `describeOnEachEngine` works on. */
export interface StorageSuite {
  engine: Engine;
  /** The suite's storage on a fresh migrated database (for queries the repositories do not make). */
  storage: Storage;
  repos: Repositories;
}

/**
 * Registers `tests` once for each engine under test (SQLite; PostgreSQL too with
 * AGENT_RUNS_TEST_SCALE=1), in a suite `${title} on ${engine}` over a fresh migrated database of its
 * own, dropped after it. The database opens in the suite's first `before`: `storage` and `repos` are
 * filled in then, so hooks and tests use them, while registering does not.
 */
export function describeOnEachEngine(title: string, tests: (suite: StorageSuite) => void): void {
  for (const engine of ENGINES) {
    describe(`${title} on ${engine}`, () => {
      const storage = {} as Storage;
      const repos = {} as Repositories;
      let opened: Awaited<ReturnType<typeof openTestStorage>> | undefined;
      before(async () => {
        opened = await openTestStorage(engine);
        Object.assign(storage, opened);
        Object.assign(repos, createRepositories(opened.db));
      });
      after(() => opened?.drop());
      tests({ engine, storage, repos });
    });
  }
}

/** A workspace with API keys and OAuth apps on and no rate limits: only its slot count varies. */
export function createTestWorkspace(
  workspaces: WorkspaceStore,
  slug: string,
  maxConcurrentRuns = 100,
): Promise<Workspace> {
  return workspaces.create({
    slug,
    name: slug,
    features: { apiKeys: true, oauthApps: true },
    rateLimits: {},
    maxConcurrentRuns,
  });
}
