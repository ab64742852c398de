import type { Kysely, Selectable } from 'kysely';
import type { Agent } from '../../domain/agent.ts';
import type { OutputSchemaSetting } from '../../domain/run-controls.ts';
import type { ToolRef } from '../../domain/tool-ref.ts';
import type { AgentAdminStore, NewAgent } from '../../engine/ports.ts';
import type { ReasoningLevelInput } from '../../domain/usage.ts';
import { ConflictError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { fromJson, fromNullableJson, nowIso, toJson } from '../json-column.ts';
import type { AgentsTable, Database } from '../schema.ts';
import { isUniqueViolation } from '../unique-violation.ts';

export type { NewAgent };

export class AgentRepository implements AgentAdminStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async create(input: NewAgent): Promise<Agent> {
    const now = nowIso();
    const row: AgentsTable = {
      id: newId('agent'),
      workspace_id: input.workspaceId,
      slug: input.slug,
      name: input.name,
      system_prompt: input.systemPrompt,
      model_id: input.modelId,
      use_workspace_default_model: input.useWorkspaceDefaultModel ? 1 : 0,
      reasoning_level: input.reasoningLevel === null ? null : toJson(input.reasoningLevel),
      tools: toJson(input.tools),
      is_system: input.isSystem ? 1 : 0,
      description: input.description ?? null,
      output_schema: input.outputSchema ? toJson(input.outputSchema) : null,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.#db.insertInto('agents').values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error))
        throw new ConflictError(`an agent with slug '${input.slug}' already exists`);
      throw error;
    }
    return toAgent(row);
  }

  async findById(workspaceId: string, id: string): Promise<Agent | undefined> {
    const row = await this.#db
      .selectFrom('agents')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toAgent(row);
  }

  async findBySlug(workspaceId: string, slug: string): Promise<Agent | undefined> {
    const row = await this.#db
      .selectFrom('agents')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('slug', '=', slug)
      .executeTakeFirst();
    return row && toAgent(row);
  }

  async listByWorkspace(workspaceId: string): Promise<Agent[]> {
    const rows = await this.#db
      .selectFrom('agents')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toAgent);
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('agents')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

function toAgent(row: Selectable<AgentsTable>): Agent {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    slug: row.slug,
    name: row.name,
    systemPrompt: row.system_prompt,
    modelId: row.model_id,
    useWorkspaceDefaultModel: row.use_workspace_default_model === 1,
    reasoningLevel: fromNullableJson<ReasoningLevelInput>(row.reasoning_level),
    tools: fromJson<ToolRef[]>(row.tools),
    isSystem: row.is_system === 1,
    description: row.description,
    outputSchema: fromNullableJson<OutputSchemaSetting>(row.output_schema),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
