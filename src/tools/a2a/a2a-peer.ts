import type { SendMessageRequest, SendMessageResult } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { GuardedFetch } from '../server-tool.ts';
import { jsonRpcAnswersOnly, NotJsonRpcEndpointError } from './json-rpc-answers.ts';
import { cardEndpoint, probeCandidates } from './peer-endpoint.ts';
import { jsonRpcClient } from './peer-client.ts';

/**
 * One remote peer as an `a2a` ref names it. Its JSON-RPC endpoint is found at
 * the first call, from the Agent Card (in A2A 1.0 when the card offers a 1.0
 * interface, else 0.3) or else by probing the root and the usual paths with a
 * v0.3 `message/send` (the spec's probing), and is kept for the later calls.
 */
export class A2aPeer {
  readonly #agentCardUrl: string;
  readonly #fetch: GuardedFetch;
  readonly #onForeignEndpoint: (endpoint: URL) => void;
  #client: Client | undefined;

  /** `onForeignEndpoint`: the card names an endpoint on another origin than its own URL's. */
  constructor(
    agentCardUrl: string,
    fetch: GuardedFetch,
    onForeignEndpoint: (endpoint: URL) => void = () => {},
  ) {
    this.#agentCardUrl = agentCardUrl;
    this.#fetch = fetch;
    this.#onForeignEndpoint = onForeignEndpoint;
  }

  async send(request: SendMessageRequest, signal: AbortSignal): Promise<SendMessageResult> {
    if (this.#client) return this.#client.sendMessage(request, { signal });
    const endpoint = await cardEndpoint(this.#agentCardUrl, this.#fetch, signal);
    if (endpoint === undefined) return this.#probe(request, signal);
    const endpointUrl = new URL(endpoint.url);
    if (endpointUrl.origin !== new URL(this.#agentCardUrl).origin) this.#onForeignEndpoint(endpointUrl);
    this.#client = await jsonRpcClient(
      endpoint.url,
      jsonRpcAnswersOnly(this.#fetch, () => {}),
      endpoint.version,
    );
    return this.#client.sendMessage(request, { signal });
  }

  async #probe(request: SendMessageRequest, signal: AbortSignal): Promise<SendMessageResult> {
    const misses: string[] = [];
    for (const candidate of probeCandidates(this.#agentCardUrl)) {
      let answered = false;
      const client = await jsonRpcClient(
        candidate,
        jsonRpcAnswersOnly(this.#fetch, () => (answered = true)),
        '0.3',
      );
      try {
        const result = await client.sendMessage(request, { signal });
        this.#client = client;
        return result;
      } catch (error) {
        if (answered) this.#client = client;
        // A network failure or a cancel ends the probing: the other candidates share its origin.
        if (!(error instanceof NotJsonRpcEndpointError)) throw error;
        misses.push(error.message);
      }
    }
    throw new Error(`no A2A JSON-RPC endpoint found: ${misses.join('; ')}`);
  }
}
