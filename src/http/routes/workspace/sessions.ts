import type { FastifyInstance } from 'fastify';
import type { Session, SessionMessage, SessionSpec } from '../../../domain/session.ts';
import type { SessionMessageRequest } from '../../../engine/lifecycle/session-service.ts';
import { parseInput } from '../../parse.ts';
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
import { requiresScopes } from '../../plugins/required-scopes.ts';

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
export function sessionRoutes(app: FastifyInstance, { engine }: AppResources): void {
  app.post('/agent-sessions', requiresScopes('sessions:write'), async (request, reply) => {
    const spec = parseInput(sessionCreateSchema, request.body) as SessionSpec;
    const session = await engine.sessions.create(runCredential(principalOf(request)), spec);
    return reply.status(201).send({ sessionId: session.id });
  });

  app.get('/agent-sessions', requiresScopes('sessions:read'), async (request) => {
    const query = parseInput(sessionListQuerySchema, request.query, 'query');
    const { total, sessions } = await engine.sessions.list(principalOf(request).workspace.id, {
      metadata: query.metadata,
      ...(query.status && { status: query.status }),
      limit: query.limit,
      offset: query.offset,
    });
    return { total, limit: query.limit, offset: query.offset, sessions: sessions.map(listEntry) };
  });

  app.get<{ Params: SessionParams }>(
    '/agent-sessions/:sessionId',
    requiresScopes('sessions:read'),
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
    requiresScopes('sessions:read'),
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
    { bodyLimit: RUN_BODY_LIMIT, ...requiresScopes('sessions:write') },
    async (request, reply) => {
      const message = parseInput(sessionMessageSchema, request.body) as SessionMessageRequest;
      const principal = principalOf(request);
      const run = await engine.sessions.message(runCredential(principal), request.params.sessionId, message);
      return reply
        .status(202)
        .send({ runId: run.id, streamUrl: streamUrl(principal.workspace.slug, run.id) });
    },
  );

  app.delete<{ Params: SessionParams }>(
    '/agent-sessions/:sessionId',
    requiresScopes('sessions:write'),
    async (request) => {
      const session = await engine.sessions.end(principalOf(request).workspace.id, request.params.sessionId);
      return { sessionId: session.id, status: session.status };
    },
  );
}
