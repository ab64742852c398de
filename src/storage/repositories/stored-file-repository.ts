import type { Kysely } from 'kysely';
import { newId } from '../../domain/ids.ts';
import type { FileStore, StoredFileContent } from '../../engine/ports.ts';
import { nowIso } from '../json-column.ts';
import type { Database } from '../schema.ts';

/** Files server-resolved tools returned, in the database under an opaque storage key. */
export class StoredFileRepository implements FileStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async put(workspaceId: string, runId: string, file: StoredFileContent): Promise<string> {
    const storageKey = `files/${runId}/${newId('file')}`;
    await this.#db
      .insertInto('stored_files')
      .values({
        storage_key: storageKey,
        workspace_id: workspaceId,
        run_id: runId,
        filename: file.filename,
        mime_type: file.mimeType,
        size_bytes: file.data.byteLength,
        data: Buffer.from(file.data).toString('base64'),
        created_at: nowIso(),
      })
      .execute();
    return storageKey;
  }

  async get(workspaceId: string, storageKey: string): Promise<StoredFileContent | undefined> {
    const row = await this.#db
      .selectFrom('stored_files')
      .select(['filename', 'mime_type', 'data'])
      .where('workspace_id', '=', workspaceId)
      .where('storage_key', '=', storageKey)
      .executeTakeFirst();
    if (!row) return undefined;
    return { filename: row.filename, mimeType: row.mime_type, data: Buffer.from(row.data, 'base64') };
  }
}
