import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { DefaultExecutionEventBusManager } from '@a2a-js/sdk/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { issuerOf } from '../../oauth/issuer.ts';
import {
  A2A_ENDPOINT_CARD,
  A2A_JSON_RPC,
  A2A_WELL_KNOWN_CARD,
} from '../../openapi/a2a-route-descriptions.ts';
import { describeRoute } from '../../openapi/describe-route.ts';
import { rateLimit } from '../../plugins/rate-limit.ts';
import { workspaceAuth } from '../../plugins/workspace-auth.ts';
import { principalOf } from '../../principal-of.ts';
import type { AppResources } from '../../resources.ts';
import { runCredential } from '../../run-credential.ts';
import { hostedAgentCard, sdkAgentCard, type HostedAgentCard } from './agent-card.ts';
import { HostedAgentExecutor } from './agent-executor.ts';
import { ExpiringTaskStore } from './expiring-task-store.ts';
import { callerTrace } from '../../caller-trace.ts';
import { hostedCallContext } from './hosted-call.ts';
import { methodOf, registerJsonRpcBodyParser, requestIdOf, type JsonRpcBody } from './json-rpc-body.ts';
import { errorEnvelope, JSON_RPC_CODES, startFailure } from './json-rpc-errors.ts';
import { sendJsonRpcStream } from './json-rpc-stream.ts';
import { HostedAgentRequestHandler } from './request-handler.ts';

/**
 * A message is text only, at most 200,000 characters: at most 600 KB of UTF-8 as JSON serializers
 * write it (the limit of the service's other small routes).
 */
export const A2A_BODY_LIMIT = 1024 * 1024;
/** Streamed tasks are kept for `tasks/get`, `tasks/cancel` and `tasks/resubscribe` this long after their last change. */
const TASK_TTL_MS = 60 * 60 * 1000;
const MAX_TASKS = 10_000;
/** Where A2A v0.3 peers look for a card, here under the agent's endpoint. */
const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** The path of a workspace's hosted agents (what a slug-mismatch hint names). */
export function a2aWorkspacePath(workspaceSlug: string): string {
  return `/api/a2a/${workspaceSlug}`;
}

type AgentParams = { workspaceSlug: string; agentSlug: string };

/**
 * The hosted A2A endpoint, under `/api/a2a/:workspaceSlug/agents/:agentSlug`: JSON-RPC 2.0 in A2A
 * v0.3 shapes on POST (the official SDK's request handler behind its v0.3 JSON-RPC transport), the
 * agent's card on GET (at the endpoint itself and at `.well-known/agent-card.json` under it). The
 * credentials, scope (`runs:write`) and rate limits are those of the workspace routes.
 */
export async function a2aRoutes(app: FastifyInstance, options: { resources: AppResources }): Promise<void> {
  const { repos, engine, config, rateCounters } = options.resources;
  const shutdown = new AbortController();
  // Streams end as soon as the process begins to stop, as the run streams do.
  options.resources.stopping.addEventListener('abort', () => shutdown.abort(), { once: true });
  app.addHook('preClose', async () => shutdown.abort());
  const executor = new HostedAgentExecutor({
    hostedAgents: engine.hostedAgents,
    runs: engine.runs,
    shutdown: shutdown.signal,
    logger: app.log,
  });
  const tasks = new ExpiringTaskStore({ ttlMs: TASK_TTL_MS, maxTasks: MAX_TASKS });
  const buses = new DefaultExecutionEventBusManager();

  app.decorateRequest('principal', null);
  app.addHook(
    'onRequest',
    workspaceAuth({
      apiKeys: repos.apiKeys,
      oauth: repos.oauth,
      workspaces: repos.workspaces,
      checkSlug: true,
      workspacePath: a2aWorkspacePath,
    }),
  );
  registerJsonRpcBodyParser(app);
  // Card reads are transport; a call counts in its method's bucket, so its body is read first.
  const transportLimit = rateLimit({ counters: rateCounters });
  const callLimit = rateLimit({
    counters: rateCounters,
    jsonRpcMethodOf: (request) => methodOf(request.body),
  });

  const endpointUrl = (params: AgentParams) =>
    `${issuerOf(config, app)}${a2aWorkspacePath(params.workspaceSlug)}/agents/${params.agentSlug}`;
  const servedAgent = async (request: FastifyRequest<{ Params: AgentParams }>) => {
    const credential = runCredential(principalOf(request));
    const agent = await engine.hostedAgents.authorize(credential, request.params.agentSlug);
    return { credential, agent, card: hostedAgentCard(agent, endpointUrl(request.params)) };
  };

  // The descriptions declare the scope the workspace-auth hook checks (runs:write).
  const card = async (request: FastifyRequest<{ Params: AgentParams }>): Promise<HostedAgentCard> =>
    (await servedAgent(request)).card;
  app.get<{ Params: AgentParams }>(
    '/',
    { ...describeRoute(A2A_ENDPOINT_CARD), onRequest: transportLimit },
    card,
  );
  app.get<{ Params: AgentParams }>(
    AGENT_CARD_PATH,
    { ...describeRoute(A2A_WELL_KNOWN_CARD), onRequest: transportLimit },
    card,
  );

  // The body is what this scope's parser made of it (`registerJsonRpcBodyParser`), or none when none was sent.
  app.post<{ Params: AgentParams; Body: JsonRpcBody | undefined }>(
    '/',
    { bodyLimit: A2A_BODY_LIMIT, ...describeRoute(A2A_JSON_RPC), preHandler: callLimit },
    async (request, reply) => {
      const body = request.body ?? {
        ok: false,
        code: JSON_RPC_CODES.invalidRequest,
        message: 'Invalid Request: the body must be a JSON-RPC request object',
      };
      if (!body.ok) return reply.send(errorEnvelope(null, body.code, body.message));
      const id = requestIdOf(body);
      let served: Awaited<ReturnType<typeof servedAgent>>;
      try {
        served = await servedAgent(request);
      } catch (error) {
        const { code, message, data } = LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(
          startFailure(error, request.log),
        );
        return reply.send(errorEnvelope(id, code, message, data));
      }
      const handler = new LegacyJsonRpcTransportHandler(
        new HostedAgentRequestHandler(sdkAgentCard(served.card), tasks, executor, buses),
      );
      const answer = await handler.handle(
        body.request,
        hostedCallContext(served.credential, served.agent, callerTrace(request)),
      );
      if (Symbol.asyncIterator in answer) {
        return sendJsonRpcStream(reply, answer, id, {
          stop: shutdown.signal,
          metrics: options.resources.metrics,
        });
      }
      return reply.send(answer);
    },
  );
}
