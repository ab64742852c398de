import type { Kysely, Selectable } from 'kysely';
import { ConflictError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { HttpToolTarget, WorkspaceTool } from '../../domain/workspace-tool.ts';
import { fromJson, nowIso, toJson } from '../json-column.ts';
import type { NewWorkspaceTool, WorkspaceToolAdminStore } from '../../engine/ports.ts';
import type { Database, WorkspaceToolsTable } from '../schema.ts';
import { isUniqueViolation } from '../unique-violation.ts';

export type { NewWorkspaceTool };

export class WorkspaceToolRepository implements WorkspaceToolAdminStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async create(input: NewWorkspaceTool): Promise<WorkspaceTool> {
    const row: WorkspaceToolsTable = {
      id: newId('tool'),
      workspace_id: input.workspaceId,
      name: input.name,
      description: input.description,
      parameters: toJson(input.parameters),
      http: toJson(input.http),
      created_at: nowIso(),
    };
    try {
      await this.#db.insertInto('workspace_tools').values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`a tool named '${input.name}' already exists`);
      throw error;
    }
    return toTool(row);
  }

  async findById(workspaceId: string, id: string): Promise<WorkspaceTool | undefined> {
    const row = await this.#db
      .selectFrom('workspace_tools')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toTool(row);
  }

  async listByWorkspace(workspaceId: string): Promise<WorkspaceTool[]> {
    const rows = await this.#db
      .selectFrom('workspace_tools')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toTool);
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('workspace_tools')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

function toTool(row: Selectable<WorkspaceToolsTable>): WorkspaceTool {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    description: row.description,
    parameters: fromJson<Record<string, unknown>>(row.parameters),
    http: fromJson<HttpToolTarget>(row.http),
    createdAt: row.created_at,
  };
}
