import type { FastifyInstance } from 'fastify';
import { describeRoute } from '../../openapi/describe-route.ts';
import { parseInput } from '../../parse.ts';
import { runListEntry } from '../../presenters/run-list-entry.ts';
import { principalOf } from '../../principal-of.ts';
import type { AppResources } from '../../resources.ts';
import { runCredential } from '../../run-credential.ts';
import { encodeRunListCursor } from '../../run-list-cursor.ts';
import { runListQuerySchema } from '../../schemas/run-list.ts';
import { runListSchema } from '../../schemas/responses/runs.ts';

/** `GET {ws}/agent-runs` (extensions §4): the workspace's runs, newest first, in keyset pages. */
export function runListRoutes(app: FastifyInstance, { engine }: AppResources): void {
  app.get(
    '/agent-runs',
    describeRoute({
      operationId: 'listRuns',
      summary: 'List runs',
      description:
        "Newest first. Filters combine with AND: `status` (repeatable, any of), `agentId`, `sessionId`, `metadata` (repeatable `key:value`). Pages by `cursor` (the previous page's `nextCursor`): runs created meanwhile never shift a page. A credential with an agent allowlist sees only its agents' runs.",
      tags: ['runs'],
      scopes: ['runs:read'],
      bucket: 'transport',
      query: runListQuerySchema,
      responses: { 200: { description: 'A page of runs.', body: runListSchema } },
    }),
    async (request) => {
      const query = parseInput(runListQuerySchema, request.query, 'query');
      // One run more than the page tells whether another page follows.
      const runs = await engine.runs.list(runCredential(principalOf(request)), {
        statuses: query.status,
        ...(query.agentId !== undefined && { agentId: query.agentId }),
        ...(query.sessionId !== undefined && { sessionId: query.sessionId }),
        metadata: query.metadata,
        limit: query.limit + 1,
        ...(query.cursor && { after: query.cursor }),
      });
      const page = runs.slice(0, query.limit);
      const last = page.at(-1);
      return {
        runs: page.map(runListEntry),
        nextCursor: runs.length > query.limit && last ? encodeRunListCursor(last) : null,
      };
    },
  );
}
