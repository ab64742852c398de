import { z } from 'zod';
import { METADATA_KEY_PATTERN, METADATA_VALUE_MAX_CHARS } from './limits.ts';

/** A query parameter holding an integer in [min, max], with one message naming the range for any other value. */
export function integerParameter(min: number, max: number) {
  const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
  const error = `must be an integer ${range}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

/** A repeatable query parameter: absent is none, once is one. */
export const toList = (value: unknown) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** Repeatable `metadata=key:value` filters (AND-combined by the lists that take them). */
export const metadataFiltersSchema = z.preprocess(
  toList,
  z.array(
    z.string().transform((entry, context) => {
      const separator = entry.indexOf(':');
      const key = entry.slice(0, separator);
      const value = entry.slice(separator + 1);
      if (separator < 1 || !METADATA_KEY_PATTERN.test(key) || value.length > METADATA_VALUE_MAX_CHARS) {
        context.addIssue({
          code: 'custom',
          message: `'${entry}' is not key:value (key ^[A-Za-z0-9._-]{1,64}$)`,
        });
        return z.NEVER;
      }
      return { key, value };
    }),
  ),
);
