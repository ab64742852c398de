import type { Kysely, Selectable } from 'kysely';
import { ConflictError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { Workspace, WorkspaceFeatures, WorkspaceRateLimits } from '../../domain/workspace.ts';
import type { NewWorkspace, WorkspacePatch, WorkspaceStore } from '../../engine/ports.ts';
import { isPostgres } from '../dialect.ts';
import { fromJson, nowIso, toJson } from '../json-column.ts';
import type { Database, WorkspacesTable } from '../schema.ts';
import { isUniqueViolation } from '../unique-violation.ts';

export type { NewWorkspace, WorkspacePatch };

export class WorkspaceRepository implements WorkspaceStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async create(input: NewWorkspace): Promise<Workspace> {
    const now = nowIso();
    const row = {
      id: newId('workspace'),
      slug: input.slug,
      name: input.name,
      features: toJson(input.features),
      rate_limits: toJson(input.rateLimits),
      max_concurrent_runs: input.maxConcurrentRuns,
      created_at: now,
      updated_at: now,
    } satisfies Selectable<WorkspacesTable>;
    try {
      await this.#db.insertInto('workspaces').values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`workspace '${input.slug}' already exists`);
      throw error;
    }
    return toWorkspace(row);
  }

  async findBySlug(slug: string): Promise<Workspace | undefined> {
    const row = await this.#db
      .selectFrom('workspaces')
      .selectAll()
      .where('slug', '=', slug)
      .executeTakeFirst();
    return row && toWorkspace(row);
  }

  async findById(id: string): Promise<Workspace | undefined> {
    const row = await this.#db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toWorkspace(row);
  }

  async list(): Promise<Workspace[]> {
    const rows = await this.#db
      .selectFrom('workspaces')
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toWorkspace);
  }

  async count(): Promise<number> {
    const { count } = await this.#db
      .selectFrom('workspaces')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(count);
  }

  async update(id: string, patch: WorkspacePatch): Promise<Workspace | undefined> {
    const changes: Partial<WorkspacesTable> = { updated_at: nowIso() };
    if (patch.name !== undefined) changes.name = patch.name;
    if (patch.features !== undefined) changes.features = toJson(patch.features);
    if (patch.rateLimits !== undefined) changes.rate_limits = toJson(patch.rateLimits);
    if (patch.maxConcurrentRuns !== undefined) changes.max_concurrent_runs = patch.maxConcurrentRuns;
    await this.#db.updateTable('workspaces').set(changes).where('id', '=', id).execute();
    return this.findById(id);
  }

  /**
   * Deletes the workspace and, by cascade, what it holds, but its runs' events: `run_events` has no
   * foreign key on PostgreSQL (migration 0022), so they are deleted here. The runs are locked first
   * (in id order, as the event writer's fence locks them): a commit of their events in flight ends
   * before the events are read for deletion, and a later one finds no run and writes nothing.
   */
  async delete(id: string): Promise<boolean> {
    return this.#db.transaction().execute(async (trx) => {
      const runs = trx.selectFrom('runs').select('id').where('workspace_id', '=', id);
      if (isPostgres(this.#db)) {
        await trx
          .selectFrom(runs.orderBy('id').forUpdate().as('locked'))
          .select((eb) => eb.fn.countAll().as('count'))
          .execute();
      }
      await trx.deleteFrom('run_events').where('run_id', 'in', runs).execute();
      const result = await trx.deleteFrom('workspaces').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    });
  }
}

export function toWorkspace(row: Selectable<WorkspacesTable>): Workspace {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    features: fromJson<WorkspaceFeatures>(row.features),
    rateLimits: fromJson<WorkspaceRateLimits>(row.rate_limits),
    maxConcurrentRuns: Number(row.max_concurrent_runs),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
