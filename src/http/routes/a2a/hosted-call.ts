import type { A2AError } from '@a2a-js/sdk/errors';
import { ServerCallContext, type User } from '@a2a-js/sdk/server';
import type { Agent } from '../../../domain/agent.ts';
import type { TraceOrigin } from '../../../domain/trace-context.ts';
import type { RunCredential } from '../../../engine/lifecycle/agent-access.ts';
import type { InterfaceVersion } from './agent-card.ts';

/**
 * One JSON-RPC call to a hosted agent, as the route hands it to the SDK's request handler and the
 * handler to our executor (through the call context's state): who calls which agent, whether the
 * message is sent or streamed, and the failure the call answers with instead of a result.
 */
export interface HostedCall {
  credential: RunCredential;
  agent: Agent;
  /** The trace context the call came with (its `traceparent`). */
  caller: TraceOrigin | undefined;
  mode: 'send' | 'stream' | undefined;
  failure: A2AError | undefined;
}

const HOSTED_CALL = 'agent-runs.hostedCall';

/**
 * The SDK's call context for a call in A2A `version`: its user is the (workspace, agent) pair, the owner the SDK's
 * stores scope tasks by, so a task is reachable only through its own agent's endpoint.
 */
export function hostedCallContext(
  credential: RunCredential,
  agent: Agent,
  caller: TraceOrigin | undefined,
  version: InterfaceVersion,
): ServerCallContext {
  const call: HostedCall = { credential, agent, caller, mode: undefined, failure: undefined };
  return new ServerCallContext({
    user: new HostedAgentCaller(`${credential.workspaceId}/${agent.id}`),
    requestedVersion: version,
    state: new Map([[HOSTED_CALL, call]]),
  });
}

export function hostedCallOf(context: ServerCallContext): HostedCall {
  const call = context.state.get(HOSTED_CALL) as HostedCall | undefined;
  if (!call) throw new Error('a hosted-agent call without its call state');
  return call;
}

class HostedAgentCaller implements User {
  readonly #owner: string;
  constructor(owner: string) {
    this.#owner = owner;
  }
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.#owner;
  }
}
