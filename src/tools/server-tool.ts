import type { RunTool, ServerToolHandler } from '../engine/ports.ts';

/** A server-resolved tool: what the model sees of it and what executes a call. */
export interface ServerTool {
  tool: RunTool;
  handler: ServerToolHandler;
}

/** What a server-resolved kind may use to reach the network: every fetch goes through the SSRF guard. */
export type GuardedFetch = typeof globalThis.fetch;

/** The display-safe message of anything thrown, for a tool error the model reads. */
export function failureMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * The most specific message of a failed fetch: undici reports every network failure as
 * `fetch failed` (or an empty AggregateError) with the reason in `cause`, such as
 * `connect ECONNREFUSED 127.0.0.1:9` or the SSRF guard's refusal.
 */
export function fetchFailureMessage(error: unknown): string {
  let current = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof AggregateError && current.message === '' && current.errors.length > 0) {
      current = current.errors[0];
    } else if (
      (current.message === 'fetch failed' || current.message === '') &&
      current.cause !== undefined
    ) {
      current = current.cause;
    } else {
      break;
    }
  }
  return failureMessage(current) || failureMessage(error);
}
