import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

/** The oldest MCP revision the server speaks (extensions §9). */
const OLDEST_SERVED_REVISION = '2025-06-18';

/** The revisions served: those of the SDK from 2025-06-18 on (revisions are dates, so they sort as strings). */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS.filter(
  (version) => version >= OLDEST_SERVED_REVISION,
);

/**
 * The revision an `initialize` asks the SDK's server for: the client's when it is served, else the
 * newest, which the server then offers (a client that cannot speak it disconnects, as MCP says).
 */
export function negotiableVersion(requested: unknown): string {
  return typeof requested === 'string' && SERVED_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;
}

/** Whether a later request's `MCP-Protocol-Version` header is one the server speaks (absent: yes). */
export function isServedVersionHeader(header: string | string[] | undefined): boolean {
  if (header === undefined) return true;
  return typeof header === 'string' && SERVED_PROTOCOL_VERSIONS.includes(header);
}
