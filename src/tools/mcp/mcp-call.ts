import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ServerToolOutcome } from '../../engine/ports.ts';
import { failureMessage } from '../server-tool.ts';
import { callOutcome } from './call-outcome.ts';

/**
 * How long a call may go without a progress notification: long enough for slow tools; the run's
 * own cancel and budgets bound it otherwise.
 */
export const CALL_TIMEOUT_MS = 10 * 60_000;

/**
 * One `tools/call` on an open session. A protocol or transport failure is a tool error the model
 * reads; an abort of `signal` rejects with its reason (the SDK then sends `notifications/cancelled`).
 */
export async function callMcpTool(
  client: Client,
  toolName: string,
  args: Record<string, unknown>,
  { signal, fileStem }: { signal: AbortSignal; fileStem: string },
): Promise<ServerToolOutcome> {
  let result: Awaited<ReturnType<Client['callTool']>>;
  try {
    result = await client.callTool({ name: toolName, arguments: args }, undefined, {
      signal,
      timeout: CALL_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      // A progress token is only sent with a handler; the server's progress then keeps the call alive.
      onprogress: () => {},
    });
  } catch (error) {
    // The SDK rejects an aborted request with its own timeout error: the engine wants the reason.
    if (signal.aborted) throw signal.reason;
    return { ok: false, text: `MCP call failed: ${failureMessage(error)}` };
  }
  return callOutcome(result, fileStem);
}
