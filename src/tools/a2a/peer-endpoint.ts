import { isJsonObject } from '../../domain/json-object.ts';
import type { GuardedFetch } from '../server-tool.ts';
import { readJsonBody } from './json-body.ts';

/** Where a peer whose root is not itself the JSON-RPC endpoint usually takes `message/send`, in probing order. */
export const PROBED_PATHS: readonly string[] = ['/rpc', '/message:send', '/message/send'];

/**
 * GETs `agentCardUrl`: an Agent Card (a JSON object with a string `url`)
 * yields its JSON-RPC endpoint; any other answer means the URL is not a card
 * (it may be the JSON-RPC root itself) and yields undefined. Network failures reject.
 */
export async function cardEndpoint(
  agentCardUrl: string,
  fetch: GuardedFetch,
  signal: AbortSignal,
): Promise<string | undefined> {
  const response = await fetch(agentCardUrl, { headers: { accept: 'application/json' }, signal });
  if (!response.ok) {
    await response.body?.cancel();
    return undefined;
  }
  const card = await readJsonBody(response);
  if (!isJsonObject(card) || typeof card.url !== 'string') return undefined;
  return jsonRpcUrlOf(card, response.url || agentCardUrl);
}

/** The URLs tried in order when `agentCardUrl` is not a card: the JSON-RPC root itself, then the usual paths under it. */
export function probeCandidates(root: string): string[] {
  return [
    new URL(root).href,
    ...PROBED_PATHS.map((path) => {
      const url = new URL(root);
      url.pathname = url.pathname.replace(/\/+$/, '') + path;
      return url.href;
    }),
  ];
}

/** A v0.3 card's `url` serves its `preferredTransport` (JSON-RPC when absent); other transports are listed in `additionalInterfaces`. */
function jsonRpcUrlOf(card: Record<string, unknown>, cardUrl: string): string {
  const preferred = typeof card.preferredTransport === 'string' ? card.preferredTransport : 'JSONRPC';
  if (isJsonRpc(preferred)) return new URL(card.url as string, cardUrl).href;
  const additional = Array.isArray(card.additionalInterfaces) ? card.additionalInterfaces : [];
  const jsonRpc = additional.find(
    (entry) => isJsonObject(entry) && typeof entry.url === 'string' && isJsonRpc(entry.transport),
  ) as { url: string } | undefined;
  if (jsonRpc === undefined) throw new Error(`the Agent Card at ${cardUrl} offers no JSON-RPC interface`);
  return new URL(jsonRpc.url, cardUrl).href;
}

function isJsonRpc(transport: unknown): boolean {
  return typeof transport === 'string' && transport.toUpperCase() === 'JSONRPC';
}
