import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { InvalidRequestError, UnavailableError } from '../../../domain/errors.ts';
import { runControlsView } from '../../../engine/lifecycle/run-controls-view.ts';
import { callerTrace } from '../../caller-trace.ts';
import { parseInput } from '../../parse.ts';
import { idempotencyClaimOf } from '../../plugins/idempotent-creation.ts';
import { principalOf } from '../../principal-of.ts';
import { runCredential } from '../../run-credential.ts';
import { runSnapshot } from '../../presenters/run-snapshot.ts';
import type { AppResources } from '../../resources.ts';
import { runRequestSchema } from '../../schemas/agent-spec.ts';
import { toolResultSchema } from '../../schemas/tool-result.ts';
import { RunEventStream } from '../../sse/run-event-stream.ts';
import { countOpenStream } from '../../sse/open-stream-gauge.ts';
import { describeRoute } from '../../openapi/describe-route.ts';
import { runEventSchema } from '../../schemas/responses/run-events.ts';
import {
  runCancelledSchema,
  runCreatedSchema,
  runSnapshotSchema,
  toolResultAcceptedSchema,
} from '../../schemas/responses/runs.ts';

type RunParams = { workspaceSlug: string; runId: string };

const streamQuerySchema = z.object({
  lastSeq: z
    .string()
    .regex(/^\d+$/, 'must be a non-negative integer')
    .transform(Number)
    .optional()
    .describe('Resume after this seq (ignored when Last-Event-ID is sent).'),
});

/** Read by `cursorOf`: what EventSource sends on reconnect. */
const streamHeadersSchema = z.object({
  'Last-Event-ID': z.string().regex(/^\d+$/).optional().describe('Resume after this seq; wins over lastSeq.'),
});

/** Run creation, snapshot, the SSE stream and cancellation. */
export function runRoutes(app: FastifyInstance, resources: AppResources): void {
  const { engine } = resources;
  const openStreams = new Set<RunEventStream>();
  // Streams end as soon as the process begins to stop (their clients resume on another replica,
  // with Last-Event-ID), while the app keeps answering readiness through the drain.
  const endStreams = () => {
    for (const stream of openStreams) stream.end();
  };
  resources.stopping.addEventListener('abort', endStreams, { once: true });
  app.addHook('preClose', async () => endStreams());

  app.post(
    '/agent-runs',
    {
      bodyLimit: RUN_BODY_LIMIT,
      ...describeRoute({
        operationId: 'createRun',
        summary: 'Start a run',
        description:
          'Validates the agent spec plus `prompt` or `messages`, resolves the model, stores the run and answers at once: the run executes in a worker. A stored run is never dropped: if the queue (Redis) cannot take it now, it is queued as soon as it can. While the database does not answer, nothing is stored and the answer is `503 unavailable` with `Retry-After`.',
        tags: ['runs'],
        scopes: ['runs:write'],
        bucket: 'run_start',
        idempotent: 'run',
        body: runRequestSchema,
        responses: { 202: { description: 'The run was accepted.', body: runCreatedSchema } },
        errors: ['invalid_model', 'forbidden'],
      }),
    },
    async (request, reply) => {
      const body = parseInput(runRequestSchema, request.body);
      const principal = principalOf(request);
      const claim = idempotencyClaimOf(request);
      const run =
        (claim?.takenOver &&
          (await resources.repos.runs.findState(principal.workspace.id, claim.resourceId))) ||
        (await engine.runs.create(
          runCredential(principal),
          body,
          undefined,
          callerTrace(request),
          claim && { id: claim.resourceId },
        ));
      return reply
        .status(202)
        .send({ runId: run.id, streamUrl: streamUrl(principal.workspace.slug, run.id) });
    },
  );

  app.get<{ Params: RunParams }>(
    '/agent-runs/:runId',
    describeRoute({
      operationId: 'getRun',
      summary: 'Read a run',
      description:
        'Status, final text, error, the spec, metadata, the client tool calls awaiting an answer (`pendingToolCalls`), the usage triple (`tokens`, `turns`, `model`: null until the terminal event) and, once known, the `structuredOutput` report (with the validated reply) and the current task `plan`. No live subscription.',
      tags: ['runs'],
      scopes: ['runs:read'],
      bucket: 'transport',
      responses: { 200: { description: 'The run snapshot.', body: runSnapshotSchema } },
      errors: ['not_found'],
    }),
    async (request) => {
      const run = await engine.runs.get(principalOf(request).workspace.id, request.params.runId);
      const [pending, controls] = await Promise.all([
        engine.runs.pendingToolCalls(run),
        runControlsView(engine.events, run),
      ]);
      return runSnapshot(run, pending, controls);
    },
  );

  app.get<{ Params: RunParams }>(
    '/agent-runs/:runId/stream',
    describeRoute({
      operationId: 'streamRunEvents',
      summary: "Follow a run's events",
      description:
        'Server-Sent Events: each frame has `id: <seq>`, `event: <type>` and `data: <JSON { seq, type, data }>`. Events after the cursor are replayed from the persisted log, then the stream goes on live; it closes right after the terminal event. Idle streams get comment lines as heartbeats.',
      tags: ['runs'],
      scopes: ['runs:read'],
      bucket: 'transport',
      query: streamQuerySchema,
      headers: streamHeadersSchema,
      responses: {
        200: {
          description: 'The event stream; every `data` line is one RunEvent.',
          contentType: 'text/event-stream',
          body: runEventSchema,
        },
      },
      errors: ['not_found'],
    }),
    async (request, reply) => {
      if (resources.stopping.aborted) throw new UnavailableError('this replica is stopping; reconnect');
      const run = await engine.runs.state(principalOf(request).workspace.id, request.params.runId);
      const afterSeq = cursorOf(request.headers['last-event-id'], request.query);
      // The stream writes its own head on the raw response: keep the headers the hooks set (rate limits).
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) reply.raw.setHeader(name, value);
      }
      reply.hijack();
      const stream = new RunEventStream(reply.raw, { id: run.id, ended: run.endedAt !== null }, afterSeq, {
        store: engine.events,
        bus: engine.bus,
        heartbeatMs: engine.heartbeatMs,
      });
      openStreams.add(stream);
      void stream.closed.then(() => openStreams.delete(stream));
      countOpenStream(reply.raw, resources.metrics);
      await stream.start();
    },
  );

  app.post<{ Params: RunParams }>(
    '/agent-runs/:runId/tool-results',
    {
      bodyLimit: TOOL_RESULT_BODY_LIMIT,
      ...describeRoute({
        operationId: 'submitToolResult',
        summary: 'Answer a client-resolved tool call',
        description:
          'Exactly one of `result` or `error` for a pending `local_tool_call`. After a cancellation the answer is accepted and ignored.',
        tags: ['runs'],
        scopes: ['runs:write'],
        bucket: 'lifecycle',
        body: toolResultSchema,
        responses: { 200: { description: 'The result was stored.', body: toolResultAcceptedSchema } },
        errors: ['not_found', 'unknown_tool_use', 'run_terminal'],
      }),
    },
    async (request) => {
      const { toolUseId, answer } = parseInput(toolResultSchema, request.body);
      const outcome = await engine.runs.submitToolResult(
        principalOf(request).workspace.id,
        request.params.runId,
        toolUseId,
        answer,
      );
      return { toolUseId, accepted: true, ...(outcome === 'ignored_after_cancel' && { ignored: true }) };
    },
  );

  app.post<{ Params: RunParams }>(
    '/agent-runs/:runId/cancel',
    describeRoute({
      operationId: 'cancelRun',
      summary: 'Cancel a run',
      description:
        'Idempotent. The runner stops between model turns; the stream ends with a `cancelled` event.',
      tags: ['runs'],
      scopes: ['runs:write'],
      bucket: 'lifecycle',
      responses: {
        200: { description: 'Cancellation requested (or the run had ended).', body: runCancelledSchema },
      },
      errors: ['not_found'],
    }),
    async (request) => {
      const run = await engine.runs.cancel(principalOf(request).workspace.id, request.params.runId);
      return { runId: run.id, status: run.endedAt === null ? 'cancelling' : run.status };
    },
  );
}

/** A 2 MB result plus 5 MB of files in base64. */
const TOOL_RESULT_BODY_LIMIT = 16 * 1024 * 1024;

/** Inline attachments (5 MB, base64) plus 200 messages of up to 200,000 characters. */
export const RUN_BODY_LIMIT = 64 * 1024 * 1024;

export function streamUrl(workspaceSlug: string, runId: string): string {
  return `/api/v1/workspaces/${workspaceSlug}/agent-runs/${runId}/stream`;
}

/** Resume point: `Last-Event-ID` (what EventSource sends on reconnect) wins over `lastSeq`. */
function cursorOf(lastEventId: string | string[] | undefined, query: unknown): number {
  if (typeof lastEventId === 'string' && lastEventId.trim() !== '') {
    if (!/^\d+$/.test(lastEventId.trim())) {
      throw new InvalidRequestError('Last-Event-ID: must be a non-negative integer (an event seq)');
    }
    return Number(lastEventId.trim());
  }
  return parseInput(streamQuerySchema, query, 'query').lastSeq ?? 0;
}
