import { isJsonObject } from '../domain/json-object.ts';

export const EMPTY_OBJECT_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: 'object',
  properties: {},
});

/**
 * The schema when its root is an object schema, kept verbatim (nested constraints included);
 * `properties` alone implies `type: object`. Anything else is not an object schema.
 */
export function objectRootSchema(schema: unknown): Record<string, unknown> | undefined {
  if (!isJsonObject(schema)) return undefined;
  if (schema.type === 'object') return schema;
  if (schema.type === undefined && isJsonObject(schema.properties)) return { type: 'object', ...schema };
  return undefined;
}

/** An input schema as the providers need it: an object-root schema, else the empty object schema. */
export function objectInputSchema(schema: unknown): Record<string, unknown> {
  const object = objectRootSchema(schema);
  return object ? { properties: {}, ...object } : { ...EMPTY_OBJECT_SCHEMA };
}
