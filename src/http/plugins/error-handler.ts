import type { FastifyError, FastifyInstance } from 'fastify';
import { DomainError, UnavailableError, type ErrorCode } from '../../domain/errors.ts';
import { errorResponse, statusOf } from '../error-mapping.ts';

/**
 * What `Retry-After` says on a `503 unavailable`: outages of the database or Redis last seconds, and
 * a client retrying sooner than this finds the store back or gets the same quick answer.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/**
 * Every failure answers `{ error, message }`: domain errors through the one
 * status table (`503 unavailable` with `Retry-After`), Fastify's own request errors (bad JSON, wrong content type,
 * oversized body: 413 naming the route's byte limit) as 4xx, and anything unexpected as a logged 500
 * that leaks nothing.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | DomainError | Error, request, reply) => {
    if (error instanceof UnavailableError) {
      // One line per refused request during an outage: the driver's message, no stack.
      const cause = error.cause instanceof Error ? error.cause.message : undefined;
      request.log.warn({ cause }, error.message);
      reply.header('retry-after', UNAVAILABLE_RETRY_AFTER_SECONDS);
    }
    if (error instanceof DomainError) {
      const { status, body } = errorResponse(error);
      return reply.status(status).send(body);
    }
    const send = (code: ErrorCode, message: string, status = statusOf(code)) =>
      reply.status(status).send({ error: code, message });
    const status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status === 413) {
      const limit = request.routeOptions.bodyLimit;
      return send('payload_too_large', `the request body exceeds this route's limit of ${limit} bytes`);
    }
    if (status === 415) return send('unsupported_media_type', error.message);
    if (status >= 400 && status < 500) return send('invalid_request', error.message, status);
    request.log.error({ err: error }, 'unhandled error');
    return send('internal_error', 'internal server error');
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    return reply
      .status(statusOf('not_found'))
      .send({ error: 'not_found', message: `no route for ${request.method} ${path}` });
  });
}
