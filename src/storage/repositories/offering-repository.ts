import type { Kysely, Selectable } from 'kysely';
import { ConflictError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { Pricing, ProviderApi } from '../../domain/model.ts';
import type { Offering } from '../../domain/offering.ts';
import { fromNullableJson, nowIso, toJson } from '../json-column.ts';
import type { NewOffering, OfferingStore } from '../../engine/ports.ts';
import type { Database, OfferingsTable } from '../schema.ts';
import { isUniqueViolation } from '../unique-violation.ts';

export type { NewOffering };

export class OfferingRepository implements OfferingStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async create(input: NewOffering): Promise<Offering> {
    const row: OfferingsTable = {
      id: newId('offering'),
      provider: input.provider,
      api: input.api,
      base_url: input.baseUrl,
      api_key_enc: input.apiKeySealed,
      vendor_model_id: input.vendorModelId,
      label: input.label,
      context_window_tokens: input.contextWindowTokens,
      pricing: input.pricing && toJson(input.pricing),
      is_default: input.isDefault ? 1 : 0,
      created_at: nowIso(),
    };
    try {
      await this.#db.transaction().execute(async (trx) => {
        if (input.isDefault) await trx.updateTable('offerings').set({ is_default: 0 }).execute();
        await trx.insertInto('offerings').values(row).execute();
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ConflictError(`an offering for ${input.provider}/${input.vendorModelId} already exists`);
      }
      throw error;
    }
    return toOffering(row);
  }

  async list(): Promise<Offering[]> {
    const rows = await this.#db
      .selectFrom('offerings')
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toOffering);
  }

  async findById(id: string): Promise<Offering | undefined> {
    const row = await this.#db.selectFrom('offerings').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toOffering(row);
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.#db.deleteFrom('offerings').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

function toOffering(row: Selectable<OfferingsTable>): Offering {
  return {
    id: row.id,
    provider: row.provider,
    api: row.api as ProviderApi,
    baseUrl: row.base_url,
    apiKeySealed: row.api_key_enc,
    vendorModelId: row.vendor_model_id,
    label: row.label,
    contextWindowTokens: row.context_window_tokens,
    pricing: fromNullableJson<Pricing>(row.pricing),
    isDefault: row.is_default === 1,
    origin: 'stored',
    createdAt: row.created_at,
  };
}
