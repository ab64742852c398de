import type { FastifyInstance } from 'fastify';
import type { Session, SessionMessage } from '../../../domain/session.ts';
import { callerTrace } from '../../caller-trace.ts';
import { parseInput } from '../../parse.ts';
import { idempotencyClaimOf } from '../../plugins/idempotent-creation.ts';
import { principalOf } from '../../principal-of.ts';
import type { AppResources } from '../../resources.ts';
import { runCredential } from '../../run-credential.ts';
import {
  sessionCreateSchema,
  sessionListQuerySchema,
  sessionMessageSchema,
  sessionReplayQuerySchema,
} from '../../schemas/session.ts';
import { RUN_BODY_LIMIT, streamUrl } from './runs.ts';
import { describeRoute } from '../../openapi/describe-route.ts';
import { runCreatedSchema } from '../../schemas/responses/runs.ts';
import {
  sessionCreatedSchema,
  sessionDetailSchema,
  sessionEndedSchema,
  sessionListSchema,
  sessionReplaySchema,
} from '../../schemas/responses/sessions.ts';

type SessionParams = { workspaceSlug: string; sessionId: string };

function listEntry(session: Session) {
  return {
    sessionId: session.id,
    creationDate: session.createdAt,
    lastInteractionDate: session.lastInteractionAt,
    summary: session.summary,
    metadata: session.metadata,
    status: session.status,
  };
}

function replayFrame(message: SessionMessage) {
  switch (message.role) {
    case 'user':
      return {
        seq: message.seq,
        type: 'user_message',
        text: message.content,
        ...(message.attachments && { attachments: message.attachments }),
      };
    case 'assistant':
      return { seq: message.seq, type: 'assistant_message', text: message.content };
    default:
      return { seq: message.seq, type: 'message', role: message.role, text: message.content };
  }
}

/** Sessions: create, list, detail, replay, message runs and delete. */
export function sessionRoutes(app: FastifyInstance, { engine, repos }: AppResources): void {
  const { runs, sessions } = repos;
  app.post(
    '/agent-sessions',
    describeRoute({
      operationId: 'createSession',
      summary: 'Create a session',
      description:
        'The agent spec without `prompt` or `messages`: its values become the defaults of every message run.',
      tags: ['sessions'],
      scopes: ['sessions:write'],
      bucket: 'other_mutations',
      idempotent: 'session',
      body: sessionCreateSchema,
      responses: { 201: { description: 'The session was created.', body: sessionCreatedSchema } },
      errors: ['invalid_model', 'forbidden'],
    }),
    async (request, reply) => {
      const spec = parseInput(sessionCreateSchema, request.body);
      const principal = principalOf(request);
      const claim = idempotencyClaimOf(request);
      const session =
        (claim?.takenOver && (await sessions.findById(principal.workspace.id, claim.resourceId))) ||
        (await engine.sessions.create(runCredential(principal), spec, claim && { id: claim.resourceId }));
      return reply.status(201).send({ sessionId: session.id });
    },
  );

  app.get(
    '/agent-sessions',
    describeRoute({
      operationId: 'listSessions',
      summary: 'List sessions',
      description: 'Most recently used first. `metadata` filters repeat as `key:value` and combine with AND.',
      tags: ['sessions'],
      scopes: ['sessions:read'],
      bucket: 'transport',
      query: sessionListQuerySchema,
      responses: { 200: { description: 'A page of sessions.', body: sessionListSchema } },
    }),
    async (request) => {
      const query = parseInput(sessionListQuerySchema, request.query, 'query');
      const { total, sessions } = await engine.sessions.list(principalOf(request).workspace.id, {
        metadata: query.metadata,
        ...(query.status && { status: query.status }),
        limit: query.limit,
        offset: query.offset,
      });
      return { total, limit: query.limit, offset: query.offset, sessions: sessions.map(listEntry) };
    },
  );

  app.get<{ Params: SessionParams }>(
    '/agent-sessions/:sessionId',
    describeRoute({
      operationId: 'getSession',
      summary: 'Read a session',
      tags: ['sessions'],
      scopes: ['sessions:read'],
      bucket: 'transport',
      responses: { 200: { description: 'The session.', body: sessionDetailSchema } },
      errors: ['not_found'],
    }),
    async (request) => {
      const session = await engine.sessions.get(principalOf(request).workspace.id, request.params.sessionId);
      return {
        ...listEntry(session),
        messageCount: session.messageCount,
        activeRunId: session.activeRunId,
        spec: session.spec,
      };
    },
  );

  app.get<{ Params: SessionParams }>(
    '/agent-sessions/:sessionId/events',
    describeRoute({
      operationId: 'replaySession',
      summary: "Replay a session's messages",
      description:
        'Every message by default (`full`); `lastMessages=N` returns the last N. Tool calls are not replayed; attachments appear as metadata.',
      tags: ['sessions'],
      scopes: ['sessions:read'],
      bucket: 'transport',
      query: sessionReplayQuerySchema,
      responses: { 200: { description: 'The messages, oldest first.', body: sessionReplaySchema } },
      errors: ['not_found'],
    }),
    async (request) => {
      const query = parseInput(sessionReplayQuerySchema, request.query, 'query');
      const full = query.full === '1' || query.full === 'true' || query.lastMessages === undefined;
      const { session, messages } = await engine.sessions.replay(
        principalOf(request).workspace.id,
        request.params.sessionId,
        full ? undefined : query.lastMessages,
      );
      return { sessionId: session.id, total: session.messageCount, events: messages.map(replayFrame) };
    },
  );

  app.post<{ Params: SessionParams }>(
    '/agent-sessions/:sessionId/messages',
    {
      bodyLimit: RUN_BODY_LIMIT,
      ...describeRoute({
        operationId: 'sendSessionMessage',
        summary: 'Send a message (a session run)',
        description:
          "A run over the session's history and defaults; overrides here apply to this run only. On success the user and assistant turns are appended to the session. One run at a time per session: while a run of the session has not ended, `ifBusy` says what the message does (`reject` by default: `409 session_busy`; `enqueue`, `interrupt`, `rollback`: the run is accepted `queued`).",
        tags: ['sessions'],
        scopes: ['sessions:write'],
        bucket: 'run_start',
        idempotent: 'run',
        body: sessionMessageSchema,
        responses: { 202: { description: 'The run was accepted.', body: runCreatedSchema } },
        errors: ['not_found', 'invalid_model', 'forbidden', 'session_busy', 'session_ended'],
      }),
    },
    async (request, reply) => {
      const message = parseInput(sessionMessageSchema, request.body);
      const principal = principalOf(request);
      const claim = idempotencyClaimOf(request);
      const run =
        (claim?.takenOver && (await runs.findState(principal.workspace.id, claim.resourceId))) ||
        (await engine.sessions.message(
          runCredential(principal),
          request.params.sessionId,
          message,
          callerTrace(request),
          claim && { runId: claim.resourceId },
        ));
      return reply
        .status(202)
        .send({ runId: run.id, streamUrl: streamUrl(principal.workspace.slug, run.id) });
    },
  );

  app.delete<{ Params: SessionParams }>(
    '/agent-sessions/:sessionId',
    describeRoute({
      operationId: 'endSession',
      summary: 'End a session',
      description:
        'The session becomes `ended`; a run in progress is cancelled, and so are the runs queued behind it (they end `cancelled` without executing).',
      tags: ['sessions'],
      scopes: ['sessions:write'],
      bucket: 'other_mutations',
      responses: { 200: { description: 'The session is ended.', body: sessionEndedSchema } },
      errors: ['not_found'],
    }),
    async (request) => {
      const session = await engine.sessions.end(principalOf(request).workspace.id, request.params.sessionId);
      return { sessionId: session.id, status: session.status };
    },
  );
}
