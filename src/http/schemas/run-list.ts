import { z } from 'zod';
import { isWellFormedId } from '../../domain/ids.ts';
import { RUN_STATUSES } from '../../domain/run.ts';
import { decodeRunListCursor } from '../run-list-cursor.ts';
import { integerParameter, metadataFiltersSchema, toList } from './list-query.ts';

const statusError = `must be one of ${RUN_STATUSES.join(', ')}`;

/** One id of `kind`, named in the message when it is not one. */
const idParameter = (kind: 'agent' | 'session', description: string) =>
  z
    .string({ error: `must be one ${kind} id` })
    .refine((value) => isWellFormedId(kind, value), {
      error: (issue) => `'${String(issue.input)}' is not ${kind === 'agent' ? 'an agent' : 'a session'} id`,
    })
    .optional()
    .describe(description);

/** `GET {ws}/agent-runs` query: filters AND-combined, newest first, keyset pages by `cursor`. */
export const runListQuerySchema = z.object({
  status: z
    .preprocess(toList, z.array(z.enum(RUN_STATUSES, { error: statusError })))
    .describe('Repeatable: runs in any of these statuses.'),
  agentId: idParameter('agent', "Only this agent's runs."),
  sessionId: idParameter('session', "Only this session's runs."),
  metadata: metadataFiltersSchema.describe('Repeatable `key:value`, AND-combined.'),
  limit: integerParameter(1, 200).default(50).describe('Runs per page (default 50, at most 200).'),
  cursor: z
    .string()
    .transform((cursor, context) => {
      const key = decodeRunListCursor(cursor);
      if (!key) {
        context.addIssue({
          code: 'custom',
          message: 'is not a cursor this list returned (pass nextCursor as is)',
        });
        return z.NEVER;
      }
      return key;
    })
    .optional()
    .describe("The previous page's `nextCursor`."),
});
