import { createServer, type ServerOptions } from 'node:http';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyServerFactory,
} from 'fastify';
import type { TrustProxy } from '../config.ts';
import type { RunMetrics } from '../engine/ports.ts';
import type { RequestTracing } from '../engine/ports/tracing.ts';
import { registerErrorHandling } from './plugins/error-handler.ts';
import { registerJsonBodyParser } from './plugins/json-body.ts';
import { registerLingeringClose } from './plugins/lingering-close.ts';
import { RequestLogController } from './plugins/request-log.ts';
import type { AppResources } from './resources.ts';
import { a2aRoutes } from './routes/a2a/index.ts';
import { mcpRoutes } from './routes/mcp/index.ts';
import { agUiRoutes } from './routes/ag-ui/index.ts';
import { adminRoutes } from './routes/admin/index.ts';
import { apiReferenceRoutes } from './routes/api-reference.ts';
import { consoleRoutes } from './routes/console.ts';
import { consoleSignInRoutes } from './routes/console-sign-in.ts';
import { healthRoutes } from './routes/health.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { oauthRoutes } from './routes/oauth/index.ts';
import { RUN_BODY_LIMIT } from './routes/workspace/runs.ts';
import { workspaceRoutes } from './routes/workspace/index.ts';

export interface BuildAppOptions {
  logger: FastifyBaseLogger;
  /** Where tracing is on: a SERVER span per request. */
  requestTracing?: RequestTracing;
}

/** The HTTP application: routes and plugins only; adapters come in through `resources`. */
export async function buildApp(resources: AppResources, options: BuildAppOptions): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: options.logger,
    logController: new RequestLogController(),
    bodyLimit: 1024 * 1024,
    trustProxy: trustProxyOption(resources.config.trustProxy),
    // Fastify turns Node's limit on receiving a whole request (300 s) off: a client sending its body
    // slowly would hold the connection for ever. 64 MiB in 300 s needs ~220 KB/s.
    requestTimeout: 300_000,
    return503OnClosing: true,
    // Requests Fastify rejects before routing (a malformed URL, bad percent-encoding) get our error shape too.
    frameworkErrors: (error, _request, reply) => {
      void (reply as FastifyReply).status(400).send({ error: 'invalid_request', message: error.message });
    },
    ...(options.requestTracing && { serverFactory: tracedServer(options.requestTracing) }),
  });
  if (options.requestTracing) registerRouteNaming(app, options.requestTracing);
  registerErrorHandling(app);
  registerRequestMetrics(app, resources.metrics);
  registerJsonBodyParser(app);
  // An answer given before the body has all arrived (413, 401, 429) reaches the client: the rest of the
  // body is discarded, at most as much as the largest body a route takes, for at most 30 s.
  registerLingeringClose(app, { maxDiscardBytes: RUN_BODY_LIMIT, maxLingerMs: 30_000 });
  // First: it records every route registered after it for the OpenAPI document.
  apiReferenceRoutes(app, resources);
  healthRoutes(app, resources);
  metricsRoutes(app, resources);
  consoleRoutes(app);
  await app.register(consoleSignInRoutes, { resources });
  await app.register(workspaceRoutes, { prefix: '/api/v1/workspaces/:workspaceSlug', resources });
  await app.register(a2aRoutes, { prefix: '/api/a2a/:workspaceSlug/agents/:agentSlug', resources });
  await app.register(mcpRoutes, { prefix: '/api/mcp/:workspaceSlug', resources });
  await app.register(agUiRoutes, { prefix: '/api/ag-ui/:workspaceSlug/agents/:agentSlug', resources });
  await app.register(oauthRoutes, { resources });
  if (resources.adminToken) {
    await app.register(adminRoutes, { prefix: '/admin/v1', resources, token: resources.adminToken });
  }
  return app;
}

/**
 * Counts every answered request by method, route template (`unmatched` when no route matched: never
 * the raw path) and status, its duration, and each `429` by the bucket its `X-RateLimit-Bucket` names.
 * A hijacked answer (an SSE stream) is counted when its response ends; open streams are a gauge too.
 */
function registerRequestMetrics(app: FastifyInstance, metrics: RunMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    if (reply.statusCode === 429) {
      const bucket = reply.getHeader('x-ratelimit-bucket');
      if (typeof bucket === 'string') metrics.rateLimited(bucket);
    }
  });
}

/**
 * The HTTP server Fastify would create, with each request run inside its span: what Fastify sets on
 * the server it creates itself is set here too.
 */
function tracedServer(tracing: RequestTracing): FastifyServerFactory {
  return (handler, options) => {
    const server = createServer((options.http ?? {}) as ServerOptions, tracing.traced(handler));
    if (typeof options.keepAliveTimeout === 'number') server.keepAliveTimeout = options.keepAliveTimeout;
    if (typeof options.requestTimeout === 'number') server.requestTimeout = options.requestTimeout;
    if (typeof options.connectionTimeout === 'number') server.setTimeout(options.connectionTimeout);
    if (typeof options.maxRequestsPerSocket === 'number' && options.maxRequestsPerSocket > 0) {
      server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    }
    return server;
  };
}

/** Each request's span is named after its route template once routing found it (never the raw path). */
function registerRouteNaming(app: FastifyInstance, tracing: RequestTracing): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (route !== undefined) tracing.routed(request.raw, route);
    done();
  });
}

/** Fastify trusts the nearest N hops when given a function of the hop (its types omit the number form). */
function trustProxyOption(
  trust: TrustProxy,
): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}
