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
