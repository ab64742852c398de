import type { FastifyInstance } from 'fastify';

/**
 * JSON bodies go through Fastify's own parser (its prototype-poisoning checks
 * included), except that an empty body under a JSON content type reads as no
 * body: clients that always send the header can call the routes that take
 * none (cancel), and routes that need one say what is missing.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') done(null, undefined);
    else parseJson(request, text, done);
  });
}
