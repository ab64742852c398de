import type { FastifyInstance } from 'fastify';
import { isJsonObject } from '../../domain/json-object.ts';
import { MAX_JSON_DEPTH, nestedDeeperThan } from './json-body.ts';

/**
 * The codes a body's problems answer with: JSON-RPC's own, and A2A's -32005 for a content type
 * other than JSON (what the A2A SDK's transport answers; MCP has no code of its own for it).
 */
export const JSON_RPC_BODY_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  contentTypeNotSupported: -32005,
} as const;

/** A JSON-RPC endpoint's request body: a JSON object, or why it is not one (answered as a JSON-RPC error). */
export type JsonRpcBody =
  { ok: true; request: Record<string, unknown> } | { ok: false; code: number; message: string };

/**
 * Bodies of the JSON-RPC endpoints (hosted A2A, MCP) are parsed here rather than by the API's JSON parser, so that every
 * problem with them is a JSON-RPC error: malformed JSON is a parse error (-32700), a body that is not
 * a JSON object or nests too deep an invalid request (-32600), and a content type other than JSON
 * -32005, as the SDK's own transport answers. Registered in the endpoint's plugin scope only.
 */
export function registerJsonRpcBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'ignore');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    // Fastify's default parser answers through the callback (its type also allows the promise form).
    void parseJson(request, text, (error, parsed) => {
      done(
        null,
        error ? failure(JSON_RPC_BODY_CODES.parseError, `Parse error: ${error.message}`) : bodyOf(parsed),
      );
    });
  });
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, _body, done) => {
    const type = request.headers['content-type'] ?? '';
    done(
      null,
      failure(
        JSON_RPC_BODY_CODES.contentTypeNotSupported,
        `unsupported content type '${type}': send application/json`,
      ),
    );
  });
}

function bodyOf(parsed: unknown): JsonRpcBody {
  if (!isJsonObject(parsed))
    return failure(
      JSON_RPC_BODY_CODES.invalidRequest,
      'Invalid Request: the body must be a JSON-RPC request object',
    );
  if (nestedDeeperThan(parsed, MAX_JSON_DEPTH)) {
    return failure(
      JSON_RPC_BODY_CODES.invalidRequest,
      `Invalid Request: nested deeper than ${MAX_JSON_DEPTH} levels`,
    );
  }
  return { ok: true, request: parsed };
}

function failure(code: number, message: string): JsonRpcBody {
  return { ok: false, code, message };
}

/** The request's `id` when it is a valid one (a string, an integer or null), for the error's envelope. */
export function requestIdOf(body: JsonRpcBody): string | number | null {
  if (!body.ok) return null;
  const id = body.request.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

/** The JSON-RPC method a parsed body (`JsonRpcBody`, or nothing when none was sent) names, when it names one. */
export function methodOf(body: unknown): string | undefined {
  if (!isJsonObject(body) || body.ok !== true || !isJsonObject(body.request)) return undefined;
  const { method } = body.request;
  return typeof method === 'string' ? method : undefined;
}
