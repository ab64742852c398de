import { z } from 'zod';
import type { ZodOpenApiOverrideContext } from 'zod-openapi';
import { documentedInputOf } from '../schemas/documented-input.ts';

type JsonSchema = Record<string, unknown>;

/**
 * Adjusts each converted schema: shows what `documentedAs` says a schema accepts; leaves response
 * objects open to new fields (the protocol grows additively: zod writes `additionalProperties: false`
 * for every output object, though only strict ones refuse unknown fields); drops the safe-integer
 * bounds zod adds to every integer.
 */
export function overrideSchema(context: ZodOpenApiOverrideContext): void {
  const jsonSchema = context.jsonSchema as JsonSchema;
  const documented = documentedInputOf(context.zodSchema);
  if (documented) {
    for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
    Object.assign(jsonSchema, convert(documented, context.io));
  }
  const def = context.zodSchema._zod.def;
  if (
    context.io === 'output' &&
    jsonSchema.additionalProperties === false &&
    def.type === 'object' &&
    def.catchall === undefined
  ) {
    delete jsonSchema.additionalProperties;
  }
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
}

function convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...converted } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: (inner) => overrideSchema({ ...inner, io }),
  }) as JsonSchema;
  return converted;
}
