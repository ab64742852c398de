import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * Fastify's request lines, reduced to one `info` line per request once it is answered (an SSE
 * stream: once it ends): its method, route template (`unmatched` when no route matched: never the
 * raw path, which carries ids and query strings), status and duration in ms. Nothing is written on
 * arrival (Fastify's `incoming request`) nor for an unknown route (its `Route … not found` names the
 * raw path). The line carries the request's `reqId` (its logger's binding) and nothing from its
 * headers or body. A response that failed after its head was sent is logged at `error` instead.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
