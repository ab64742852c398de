import type { z } from 'zod';

const documented = new WeakMap<z.core.$ZodType, z.ZodType>();

/**
 * Names the JSON a schema accepts, for the API reference, where zod cannot derive it: a transform
 * over `unknown` (parsed by hand for precise messages), a `z.custom` check, a field checked later.
 * The validating schema stays the one handlers use; this only describes what it accepts.
 */
export function documentedAs<T extends z.ZodType>(schema: T, accepts: z.ZodType): T {
  documented.set(schema, accepts);
  return schema;
}

/** The schema `documentedAs` recorded for this one, if any. */
export function documentedInputOf(schema: z.core.$ZodType): z.ZodType | undefined {
  return documented.get(schema);
}
