import type { FastifyInstance } from 'fastify';
import { InvalidRequestError } from '../../domain/errors.ts';

/** Deeper than any schema or payload the API takes, far below what serializing it again would overflow. */
export const MAX_JSON_DEPTH = 128;

/**
 * JSON bodies go through Fastify's own parser (its prototype-poisoning checks
 * included), except that an empty body under a JSON content type reads as no
 * body: clients that always send the header can call the routes that take
 * none (cancel), and routes that need one say what is missing. A body nested
 * deeper than `MAX_JSON_DEPTH` is refused (400) before any route sees it.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') {
      done(null, undefined);
      return;
    }
    // Fastify's default parser answers through the callback (its type also allows the promise form).
    void parseJson(request, text, (error, parsed) => {
      if (error) done(error, undefined);
      else if (nestedDeeperThan(parsed, MAX_JSON_DEPTH))
        done(new InvalidRequestError(`the body is nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      else done(null, parsed);
    });
  });
}

/** Whether arrays and objects nest deeper than `limit` in `value` (iterative: any depth is safe to ask). */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: { node: unknown; depth: number }[] = [{ node: value, depth: 0 }];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const { node, depth } = entry;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push({ node: child, depth: depth + 1 });
    }
  }
  return false;
}
