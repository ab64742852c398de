import type { Kysely, Selectable } from 'kysely';
import { ConflictError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { User } from '../../domain/identity.ts';
import type { NewUser, UserStore } from '../../engine/ports.ts';
import { nowIso } from '../json-column.ts';
import type { Database, UsersTable } from '../schema.ts';
import { isUniqueViolation } from '../unique-violation.ts';

export class UserRepository implements UserStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async create(input: NewUser): Promise<User> {
    const row: UsersTable = {
      id: newId('user'),
      workspace_id: input.workspaceId,
      email: input.email.toLowerCase(),
      password_hash: input.passwordHash,
      name: input.name,
      created_at: nowIso(),
    };
    try {
      await this.#db.insertInto('users').values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error))
        throw new ConflictError(`a user with email '${row.email}' already exists`);
      throw error;
    }
    return toUser(row);
  }

  async listByWorkspace(workspaceId: string): Promise<User[]> {
    const rows = await this.#db
      .selectFrom('users')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toUser);
  }

  /** The user and their password hash, for sign-in. */
  async findCredentials(
    workspaceId: string,
    email: string,
  ): Promise<{ user: User; passwordHash: string } | undefined> {
    const row = await this.#db
      .selectFrom('users')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('email', '=', email.toLowerCase())
      .executeTakeFirst();
    return row && { user: toUser(row), passwordHash: row.password_hash };
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('users')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

function toUser(row: Selectable<UsersTable>): User {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    email: row.email,
    name: row.name,
    createdAt: row.created_at,
  };
}
