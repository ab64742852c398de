import { isJsonObject } from '../../domain/json-object.ts';
import type { GuardedFetch } from '../server-tool.ts';
import { readJsonBody } from './json-body.ts';

/** Where a peer whose root is not itself the JSON-RPC endpoint usually takes `message/send`, in probing order. */
export const PROBED_PATHS: readonly string[] = ['/rpc', '/message:send', '/message/send'];

/** The A2A versions the `a2a` tool speaks over JSON-RPC. */
export type PeerVersion = '1.0' | '0.3';

/** A peer's JSON-RPC endpoint and the A2A version spoken there. */
export interface PeerEndpoint {
  url: string;
  version: PeerVersion;
}

/**
 * GETs `agentCardUrl` (saying `A2A-Version: 1.0`, as 1.0 clients do, so that a peer speaking both
 * serves its 1.0 card): a card whose `supportedInterfaces` offer JSON-RPC in protocol version 1.0
 * yields that endpoint in 1.0; else a v0.3 card (a string `url`) or a 0.3 JSON-RPC interface yields
 * its endpoint in 0.3. Any other answer means the URL is not a card (it may be the JSON-RPC root
 * itself) and yields undefined. Network failures reject.
 */
export async function cardEndpoint(
  agentCardUrl: string,
  fetch: GuardedFetch,
  signal: AbortSignal,
): Promise<PeerEndpoint | undefined> {
  const response = await fetch(agentCardUrl, {
    headers: { accept: 'application/json', 'a2a-version': '1.0' },
    signal,
  });
  if (!response.ok) {
    await response.body?.cancel();
    return undefined;
  }
  const card = await readJsonBody(response);
  if (!isJsonObject(card)) return undefined;
  const cardUrl = response.url || agentCardUrl;
  const v1 = jsonRpcInterface(card, '1.0');
  if (v1 !== undefined) return { url: new URL(v1, cardUrl).href, version: '1.0' };
  if (typeof card.url === 'string') return { url: jsonRpcUrlOf(card, cardUrl), version: '0.3' };
  const v03 = jsonRpcInterface(card, '0.3');
  return v03 === undefined ? undefined : { url: new URL(v03, cardUrl).href, version: '0.3' };
}

/** The URL of the card's JSON-RPC interface in `version` (1.0 cards list them in `supportedInterfaces`). */
function jsonRpcInterface(card: Record<string, unknown>, version: PeerVersion): string | undefined {
  const interfaces = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [];
  const found = interfaces.find(
    (entry) =>
      isJsonObject(entry) &&
      typeof entry.url === 'string' &&
      isJsonRpc(entry.protocolBinding) &&
      typeof entry.protocolVersion === 'string' &&
      majorMinor(entry.protocolVersion) === version,
  ) as { url: string } | undefined;
  return found?.url;
}

/** `1.0.2` → `1.0`, `0.3.0` → `0.3`. */
function majorMinor(version: string): string {
  return version.split('.').slice(0, 2).join('.');
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
