import type { WorkspaceTool } from '../../domain/workspace-tool.ts';
import type { RunTool, ServerToolHandler } from '../../engine/ports.ts';
import { objectInputSchema } from '../object-schema.ts';
import { fetchFailureMessage, type GuardedFetch, type ServerTool } from '../server-tool.ts';
import { httpRequest } from './http-request.ts';
import { responseOutcome } from './http-response.ts';

export const DEFAULT_TIMEOUT_MS = 30_000;
/** The spec's limit on a tool result. */
export const DEFAULT_MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

export interface HttpToolDeps {
  fetch: GuardedFetch;
  timeoutMs?: number;
  /** Caps the whole body, inline files included. */
  maxResponseBytes?: number;
}

/**
 * `svc`: a workspace Tool row, an HTTP endpoint the service calls with the
 * model's arguments (already validated against `parameters` by the engine).
 * Timeouts, error statuses and unreachable endpoints are tool errors the model
 * reads; only a cancel of the call itself rejects.
 */
export function httpTool(row: WorkspaceTool, deps: HttpToolDeps): ServerTool {
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = deps.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const tool: RunTool = {
    kind: 'svc',
    name: row.name,
    description: row.description,
    inputSchema: objectInputSchema(row.parameters),
    // GET is safe by HTTP semantics (RFC 9110 §9.2.1), so it may run alongside the turn's other
    // read-only calls; any other method may change state on the endpoint.
    readOnly: row.http.method === 'GET',
    retain: false,
    callExtras: {},
  };
  const handler: ServerToolHandler = async (args, context) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([context.signal, timeout]);
    try {
      const { url, init } = httpRequest(row.http, args, context.toolUseId);
      const response = await deps.fetch(url, { ...init, signal });
      return await responseOutcome(row.name, response, maxResponseBytes);
    } catch (error) {
      context.signal.throwIfAborted();
      if (timeout.aborted) {
        return { ok: false, text: `the HTTP tool ${row.name} timed out after ${timeoutMs} ms` };
      }
      return { ok: false, text: `the HTTP tool ${row.name} failed: ${fetchFailureMessage(error)}` };
    }
  };
  return { tool, handler };
}
