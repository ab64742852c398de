import type { RunCredential } from '../../../engine/lifecycle/agent-access.ts';
import type { RunService } from '../../../engine/lifecycle/run-service.ts';
import { MCP_REQUEST_METADATA_KEY, MCP_SESSION_METADATA_KEY } from './agent-tool-call.ts';

/**
 * `notifications/cancelled`: cancels the run that answers the named request of this MCP session. The
 * transport is stateless, so the notification may reach another replica than the `tools/call`: the run
 * is found by its metadata (the `Mcp-Session-Id` and the request id, in storage) and cancelled through
 * the run-cancel path, which reaches the worker running it wherever it is. The `tools/call` then ends
 * with the run's `cancelled` event. Nothing happens for an unknown request or one already ended.
 */
export async function cancelRequestedRun(
  runs: RunService,
  credential: RunCredential,
  mcpSessionId: string | undefined,
  requestId: unknown,
): Promise<string | undefined> {
  if (mcpSessionId === undefined) return undefined;
  if (typeof requestId !== 'string' && typeof requestId !== 'number') return undefined;
  const [run] = await runs.list(credential, {
    statuses: [],
    metadata: [
      { key: MCP_SESSION_METADATA_KEY, value: mcpSessionId },
      { key: MCP_REQUEST_METADATA_KEY, value: String(requestId) },
    ],
    limit: 1,
  });
  if (!run) return undefined;
  await runs.cancel(credential.workspaceId, run.id);
  return run.id;
}
