import type { FastifyError, FastifyInstance } from 'fastify';
import { DomainError } from '../../domain/errors.ts';
import { errorResponse } from '../error-mapping.ts';

/**
 * Every failure answers `{ error, message }`: domain errors through the one
 * status table, Fastify's own request errors (bad JSON, wrong content type,
 * oversized body: 413 naming the route's byte limit) as 4xx, and anything unexpected as a logged 500
 * that leaks nothing.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | DomainError | Error, request, reply) => {
    if (error instanceof DomainError) {
      const { status, body } = errorResponse(error);
      return reply.status(status).send(body);
    }
    const status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status === 413) {
      return reply.status(413).send({
        error: 'payload_too_large',
        message: `the request body exceeds this route's limit of ${request.routeOptions.bodyLimit} bytes`,
      });
    }
    if (status >= 400 && status < 500) {
      const code = status === 415 ? 'unsupported_media_type' : 'invalid_request';
      return reply.status(status).send({ error: code, message: error.message });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ error: 'internal_error', message: 'internal server error' });
  });

  app.setNotFoundHandler((request, reply) =>
    reply
      .status(404)
      .send({ error: 'not_found', message: `no route for ${request.method} ${request.url.split('?')[0]}` }),
  );
}
