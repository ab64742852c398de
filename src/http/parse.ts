import type { z } from 'zod';
import { InvalidRequestError } from '../domain/errors.ts';

/** Validates untrusted input at the edge; a failure is `400 invalid_request` naming each bad field. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown, what = 'body'): z.output<T> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.length > 0 ? issue.path.join('.') : what;
    return `${path}: ${issue.message}`;
  });
  throw new InvalidRequestError(problems.join('; '));
}
