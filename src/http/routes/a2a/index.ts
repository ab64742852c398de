import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { DefaultExecutionEventBusManager, JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { issuerOf } from '../../oauth/issuer.ts';
import {
  A2A_ENDPOINT_CARD,
  A2A_JSON_RPC,
  A2A_WELL_KNOWN_CARD,
} from '../../openapi/a2a-route-descriptions.ts';
import { describeRoute } from '../../openapi/describe-route.ts';
import { jsonRpcEndpoint } from '../../plugins/hosted-endpoint.ts';
import { requestIdOf, type JsonRpcBody } from '../../plugins/json-rpc-body.ts';
import { principalOf } from '../../principal-of.ts';
import type { AppResources } from '../../resources.ts';
import { runCredential } from '../../run-credential.ts';
import { hostedAgentCard, hostedAgentCardV1, sdkAgentCard, type InterfaceVersion } from './agent-card.ts';
import { HostedAgentExecutor } from './agent-executor.ts';
import { callerTrace } from '../../caller-trace.ts';
import { hostedCallContext, hostedCallOf } from './hosted-call.ts';
import { errorEnvelope, JSON_RPC_CODES, startFailure } from './json-rpc-errors.ts';
import { sendJsonRpcStream } from './json-rpc-stream.ts';
import { RemoteTasks } from './remote-tasks.ts';
import { HostedAgentRequestHandler } from './request-handler.ts';
import { requestedVersionOf } from './requested-version.ts';
import { StoredTaskStore } from './stored-task-store.ts';
import { v1ErrorResponse, v1JsonRpcError } from './v1-json-rpc-errors.ts';

/**
 * A message is text only, at most 200,000 characters: at most 600 KB of UTF-8 as JSON serializers
 * write it (the limit of the service's other small routes).
 */
export const A2A_BODY_LIMIT = 1024 * 1024;
/** Streamed tasks are kept for `GetTask`, `CancelTask` and `SubscribeToTask` this long after their last change. */
const TASK_TTL_MS = 60 * 60 * 1000;
/** A task whose text grows is stored at most this often (every change of its state at once). */
const TASK_ARTIFACT_WRITE_INTERVAL_MS = 1000;
/** Where A2A v0.3 peers look for a card, here under the agent's endpoint. */
const AGENT_CARD_PATH = '/.well-known/agent-card.json';

function isV1(header: string | string[] | undefined): boolean {
  try {
    return requestedVersionOf(header) === '1.0';
  } catch {
    return false;
  }
}

/** The path of a workspace's hosted agents (what a slug-mismatch hint names). */
export function a2aWorkspacePath(workspaceSlug: string): string {
  return `/api/a2a/${workspaceSlug}`;
}

type AgentParams = { workspaceSlug: string; agentSlug: string };

/**
 * The hosted A2A endpoint, under `/api/a2a/:workspaceSlug/agents/:agentSlug`: JSON-RPC 2.0 on POST,
 * in A2A 1.0 with `A2A-Version: 1.0` (the official SDK's request handler behind its JSON-RPC
 * transport), else in v0.3 shapes (the same handler behind its v0.3 compatibility transport); the
 * agent's card on GET (at the endpoint itself and at `.well-known/agent-card.json` under it). The
 * credentials, scope (`runs:write`) and rate limits are those of the workspace routes.
 */
export async function a2aRoutes(app: FastifyInstance, options: { resources: AppResources }): Promise<void> {
  const { repos, engine, config } = options.resources;
  // Streams end as soon as the process begins to stop, as the run streams do.
  const { shutdown, transportLimit, callLimit } = jsonRpcEndpoint(app, {
    resources: options.resources,
    workspacePath: a2aWorkspacePath,
  });
  const executor = new HostedAgentExecutor({
    hostedAgents: engine.hostedAgents,
    runs: engine.runs,
    shutdown,
    logger: app.log,
  });
  const tasks = new StoredTaskStore({
    tasks: repos.a2aTasks,
    ttlMs: TASK_TTL_MS,
    artifactWriteIntervalMs: TASK_ARTIFACT_WRITE_INTERVAL_MS,
    logger: app.log,
  });
  const buses = new DefaultExecutionEventBusManager();
  const remote = new RemoteTasks({
    hostedAgents: engine.hostedAgents,
    runs: engine.runs,
    tasks,
    shutdown,
  });

  const endpointUrl = (params: AgentParams) =>
    `${issuerOf(config, app)}${a2aWorkspacePath(params.workspaceSlug)}/agents/${params.agentSlug}`;
  const servedAgent = async (request: FastifyRequest<{ Params: AgentParams }>) => {
    const credential = runCredential(principalOf(request));
    const agent = await engine.hostedAgents.authorize(credential, request.params.agentSlug);
    return { credential, agent, card: hostedAgentCard(agent, endpointUrl(request.params)) };
  };

  // The descriptions declare the scope the workspace-auth hook checks (runs:write).
  // A 1.0 peer asks with `A2A-Version: 1.0` (the SDK's card resolver does); any other GET reads the v0.3 card.
  const card = async (request: FastifyRequest<{ Params: AgentParams }>) => {
    const { card } = await servedAgent(request);
    return isV1(request.headers['a2a-version']) ? hostedAgentCardV1(card) : card;
  };
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
      let version: InterfaceVersion;
      try {
        version = requestedVersionOf(request.headers['a2a-version']);
      } catch (error) {
        return reply.send(v1ErrorResponse(id, error));
      }
      let served: Awaited<ReturnType<typeof servedAgent>>;
      try {
        served = await servedAgent(request);
      } catch (error) {
        const failure = startFailure(error, request.log);
        if (version === '1.0') return reply.send(v1ErrorResponse(id, failure));
        const { code, message, data } = LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(failure);
        return reply.send(errorEnvelope(id, code, message, data));
      }
      const handler = new HostedAgentRequestHandler({
        card: sdkAgentCard(served.card),
        tasks,
        executor,
        buses,
        remote,
      });
      const context = hostedCallContext(served.credential, served.agent, callerTrace(request), version);
      const streamOptions = { stop: shutdown, metrics: options.resources.metrics };
      if (version === '1.0') {
        const answer = await new JsonRpcTransportHandler(handler).handle(body.request, context);
        if (Symbol.asyncIterator in answer) {
          return sendJsonRpcStream(reply, answer, id, { ...streamOptions, errorResponse: v1ErrorResponse });
        }
        // The transport maps a failure without the service's data: the call's own failure says it all.
        const failure = hostedCallOf(context).failure;
        if (answer.error !== undefined && failure)
          return reply.send({ ...answer, error: v1JsonRpcError(failure) });
        return reply.send(answer);
      }
      const answer = await new LegacyJsonRpcTransportHandler(handler).handle(body.request, context);
      if (Symbol.asyncIterator in answer) return sendJsonRpcStream(reply, answer, id, streamOptions);
      return reply.send(answer);
    },
  );
}
