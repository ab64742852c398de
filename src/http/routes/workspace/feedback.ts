import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { RunFeedback } from '../../../domain/feedback.ts';
import { parseInput } from '../../parse.ts';
import { principalOf } from '../../principal-of.ts';
import type { AppResources } from '../../resources.ts';
import { describeRoute } from '../../openapi/describe-route.ts';
import { feedbackListSchema, feedbackSchema as feedbackAnswerSchema } from '../../schemas/responses/runs.ts';

const feedbackSchema = z
  .object({
    verdict: z.enum(['UP', 'DOWN'], { error: 'must be UP or DOWN' }),
    explanation: z.string().max(8000, 'must be at most 8000 characters').optional(),
    contentSnapshot: z.string().max(200_000).optional(),
  })
  .meta({ id: 'FeedbackRequest' });

const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

function feedbackView(feedback: RunFeedback) {
  return { id: feedback.id, verdict: feedback.verdict, targetKind: 'agent_run', agentRunId: feedback.runId };
}

/** Thumbs up/down on runs: one verdict per run, last write wins; the author is the calling API key. */
export function feedbackRoutes(app: FastifyInstance, { repos }: AppResources): void {
  app.post<{ Params: { runId: string } }>(
    '/agent-runs/:runId/feedback',
    describeRoute({
      operationId: 'giveRunFeedback',
      summary: 'Give feedback on a run',
      description:
        'One verdict per run: a repeat call updates it (last write wins). The author is the calling API key; OAuth tokens leave it null.',
      tags: ['feedback'],
      scopes: ['feedback:write'],
      bucket: 'lifecycle',
      body: feedbackSchema,
      responses: {
        200: { description: 'The verdict was updated.', body: feedbackAnswerSchema },
        201: { description: 'The first verdict on this run.', body: feedbackAnswerSchema },
      },
      errors: ['not_found'],
    }),
    async (request, reply) => {
      const body = parseInput(feedbackSchema, request.body);
      const principal = principalOf(request);
      const run = await repos.runs.findById(principal.workspace.id, request.params.runId);
      if (!run)
        return reply
          .status(404)
          .send({ error: 'Run not found', code: 'not_found', message: 'Run not found' });
      const { feedback, created } = await repos.feedback.upsert({
        workspaceId: principal.workspace.id,
        runId: run.id,
        verdict: body.verdict,
        explanation: body.explanation ?? null,
        contentSnapshot: body.contentSnapshot ?? run.finalText,
        authorApiKeyId: principal.kind === 'api_key' ? principal.apiKey.id : null,
      });
      return reply.status(created ? 201 : 200).send(feedbackView(feedback));
    },
  );

  app.get(
    '/reply-feedback',
    describeRoute({
      operationId: 'listRunFeedback',
      summary: 'List the feedback given on runs',
      tags: ['feedback'],
      scopes: ['feedback:read'],
      bucket: 'transport',
      query: listQuerySchema,
      responses: { 200: { description: 'A page of feedback, newest first.', body: feedbackListSchema } },
    }),
    async (request) => {
      const query = parseInput(listQuerySchema, request.query, 'query');
      const principal = principalOf(request);
      const items = await repos.feedback.listByWorkspace(principal.workspace.id, query.limit, query.offset);
      return {
        limit: query.limit,
        offset: query.offset,
        feedback: items.map((feedback) => ({
          ...feedbackView(feedback),
          explanation: feedback.explanation,
          contentSnapshot: feedback.contentSnapshot,
          authorApiKeyId: feedback.authorApiKeyId,
          createdAt: feedback.createdAt,
          updatedAt: feedback.updatedAt,
        })),
      };
    },
  );
}
