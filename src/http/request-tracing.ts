import type { IncomingMessage } from 'node:http';
import type { FastifyServerFactory } from 'fastify';

/**
 * HTTP server spans (extensions §3), where tracing is on: the app listens on the server
 * `serverFactory` makes, which runs each request inside its SERVER span (its parent the caller's
 * `traceparent`), so that what a handler starts (a run) belongs to the request's trace.
 */
export interface RequestTracing {
  serverFactory: FastifyServerFactory;
  /** Names the request's span after the route template that matched it. */
  routed(request: IncomingMessage, route: string): void;
}
