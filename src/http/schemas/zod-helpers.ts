import { z } from 'zod';
import { documentedAs } from './documented-input.ts';

export const formatNumber = (value: number) => value.toLocaleString('en-US');

/** An integer in [min, max], with one message for every way of missing it. */
export function intBetween(min: number, max: number) {
  const message = `must be an integer from ${formatNumber(min)} to ${formatNumber(max)}`;
  return z.number({ error: message }).int(message).min(min, message).max(max, message);
}

export function stringAtMost(max: number) {
  return z.string({ error: 'must be a string' }).max(max, `must be at most ${formatNumber(max)} characters`);
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** UTF-8 size of the value's JSON serialization; Infinity when it cannot be serialized. */
export function serializedBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * A field that is either a scalar form (`false`, `true`, a keyword) or an object form. Objects are parsed by
 * `object` alone so a mistake inside one is reported at its own path (a plain union would only say "Invalid
 * input"); anything else is parsed by `scalar`, and a failure there reports `error`.
 */
export function scalarOrObject<S extends z.ZodType, O extends z.ZodType>(
  scalar: S,
  object: O,
  error: string,
) {
  const schema = z.unknown().transform((value, ctx): z.output<S> | z.output<O> => {
    const isObject = isPlainObject(value);
    const parsed = (isObject ? object : scalar).safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) {
      ctx.addIssue({ code: 'custom', message: isObject ? issue.message : error, path: issue.path });
    }
    return z.NEVER;
  });
  return documentedAs(schema, z.union([scalar, object]));
}
