import type { FastifyInstance, onRequestAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import type { AppResources } from '../resources.ts';
import { methodOf, registerJsonRpcBodyParser } from './json-rpc-body.ts';
import { rateLimit } from './rate-limit.ts';
import { authenticateScope } from './workspace-auth.ts';

export interface HostedEndpointOptions {
  resources: AppResources;
  /** The path of the credential's own workspace endpoint, named by a slug-mismatch hint. */
  workspacePath: (workspaceSlug: string) => string;
}

export interface HostedEndpointScope {
  /** Aborted as soon as the process begins to stop (or the app closes): the endpoint's streams end. */
  shutdown: AbortSignal;
  /** Counts a request in its route's bucket before its body is read. */
  transportLimit: onRequestAsyncHookHandler & preHandlerAsyncHookHandler;
}

export interface JsonRpcEndpointScope extends HostedEndpointScope {
  /** Counts a call in its JSON-RPC method's bucket, once the body is read (a preHandler). */
  callLimit: onRequestAsyncHookHandler & preHandlerAsyncHookHandler;
}

/**
 * The set-up of a protocol endpoint that serves a workspace's agents (AG-UI, and through
 * `jsonRpcEndpoint` hosted A2A and MCP) in its plugin scope: a shutdown signal, and the credentials
 * and scopes of the workspace routes (the URL's slug checked against the credential's workspace).
 */
export function hostedEndpoint(app: FastifyInstance, options: HostedEndpointOptions): HostedEndpointScope {
  const { repos, rateCounters, stopping } = options.resources;
  const shutdown = new AbortController();
  stopping.addEventListener('abort', () => shutdown.abort(), { once: true });
  app.addHook('preClose', async () => shutdown.abort());

  authenticateScope(app, repos, { checkSlug: true, workspacePath: options.workspacePath });
  return { shutdown: shutdown.signal, transportLimit: rateLimit({ counters: rateCounters }) };
}

/**
 * A hosted endpoint that speaks JSON-RPC over POST: its bodies are parsed into JSON-RPC errors
 * (`registerJsonRpcBodyParser`), and a call counts in its method's bucket, so its body is read first.
 */
export function jsonRpcEndpoint(app: FastifyInstance, options: HostedEndpointOptions): JsonRpcEndpointScope {
  const scope = hostedEndpoint(app, options);
  registerJsonRpcBodyParser(app);
  const callLimit = rateLimit({
    counters: options.resources.rateCounters,
    jsonRpcMethodOf: (request) => methodOf(request.body),
  });
  return { ...scope, callLimit };
}
