import { isJsonObject } from '../../domain/json-object.ts';
import type { GuardedFetch } from '../server-tool.ts';
import { readJsonBody } from './json-body.ts';

/** A URL answered, but not as a JSON-RPC endpoint (a 404, a 405, an HTML page): the next candidate is tried. */
export class NotJsonRpcEndpointError extends Error {
  override name = 'NotJsonRpcEndpointError';
}

/**
 * Wraps the fetch the SDK's client posts with: an answer reaches the SDK only
 * when it is a JSON-RPC response (a result or an error, whatever its status);
 * any other answer is a `NotJsonRpcEndpointError`. `onAnswer` tells the
 * caller the URL is a JSON-RPC endpoint even when the call then fails.
 */
export function jsonRpcAnswersOnly(fetch: GuardedFetch, onAnswer: () => void): GuardedFetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = response.url || String(input);
    if (response.status === 404 || response.status === 405) {
      await response.body?.cancel();
      throw new NotJsonRpcEndpointError(`${url} answered HTTP ${response.status}`);
    }
    const body = await readJsonBody(response);
    if (!isJsonRpcResponse(body)) {
      throw new NotJsonRpcEndpointError(
        `${url} answered HTTP ${response.status} without a JSON-RPC response`,
      );
    }
    onAnswer();
    return new Response(JSON.stringify(body), {
      status: response.status,
      statusText: response.statusText,
      headers: { 'content-type': 'application/json' },
    });
  };
}

function isJsonRpcResponse(value: unknown): boolean {
  return isJsonObject(value) && value.jsonrpc === '2.0' && ('result' in value || 'error' in value);
}
