import { LegacyA2AError } from '@a2a-js/sdk/compat/v0_3/server';
import { A2AError } from '@a2a-js/sdk/errors';
import type { FastifyBaseLogger } from 'fastify';
import { DomainError } from '../../../domain/errors.ts';
import type { CancelledData, ErrorData } from '../../../domain/run-events.ts';
import { AgentNotServableError } from '../../../engine/lifecycle/hosted-agents.ts';
import { JSON_RPC_BODY_CODES } from '../../plugins/json-rpc-body.ts';

/**
 * JSON-RPC error codes of the hosted endpoint. JSON-RPC's own and A2A's (-32001 to -32009) keep
 * their meaning; the service's conditions take codes of their own in the implementation-defined
 * range, and every error's `data.error` is the service's machine code, as on the REST routes.
 */
export const JSON_RPC_CODES = {
  parseError: JSON_RPC_BODY_CODES.parseError,
  invalidRequest: JSON_RPC_BODY_CODES.invalidRequest,
  invalidParams: -32602,
  internalError: -32603,
  unsupportedOperation: -32004,
  contentTypeNotSupported: JSON_RPC_BODY_CODES.contentTypeNotSupported,
  /** Unknown agent, system agent, or an agent outside the credential's allowlist. */
  agentForbidden: -32040,
  /** The context's session has a run in flight, or was ended. */
  contextBusy: -32041,
  /** The run ended with an `error` event. */
  runFailed: -32042,
  /** The run ended with a `cancelled` event. */
  runCancelled: -32043,
} as const;

/** The error a failure before the run starts answers with (the message's problems, the agent, the session). */
export function startFailure(error: unknown, logger: FastifyBaseLogger): A2AError {
  if (error instanceof A2AError) return error;
  if (error instanceof AgentNotServableError) {
    return new LegacyA2AError(JSON_RPC_CODES.unsupportedOperation, error.message, {
      error: 'client_resolved_tools',
      kinds: [...error.kinds],
    });
  }
  if (error instanceof DomainError) {
    const data = { error: error.code, ...error.details };
    switch (error.code) {
      case 'invalid_request':
      case 'invalid_model':
        return new LegacyA2AError(JSON_RPC_CODES.invalidParams, error.message, data);
      case 'forbidden':
        return new LegacyA2AError(JSON_RPC_CODES.agentForbidden, error.message, data);
      case 'session_busy':
      case 'session_ended':
        return new LegacyA2AError(JSON_RPC_CODES.contextBusy, contextBusyMessage(error), data);
      default:
        break;
    }
  }
  logger.error({ err: error }, 'a hosted A2A message failed before its run started');
  return new LegacyA2AError(JSON_RPC_CODES.internalError, 'internal error', { error: 'internal_error' });
}

/** How a run that did not succeed ended: its terminal event. */
export type RunFailureEnd = { type: 'error'; data: ErrorData } | { type: 'cancelled'; data: CancelledData };

/** The `data` of a run's failure: the run, and what its terminal event says of why. */
export function runFailureData(runId: string, end: RunFailureEnd) {
  if (end.type === 'cancelled') {
    const { reason } = end.data;
    return { error: 'run_cancelled', runId, ...(reason !== undefined && { reason }) };
  }
  const { code, errorClass, retryable } = end.data;
  return {
    error: 'run_failed',
    runId,
    code,
    ...(errorClass !== undefined && { errorClass }),
    ...(retryable !== undefined && { retryable }),
  };
}

/** The error a `message/send` whose run failed or was cancelled answers with. */
export function runFailure(runId: string, end: RunFailureEnd) {
  const data = runFailureData(runId, end);
  return end.type === 'cancelled'
    ? new LegacyA2AError(JSON_RPC_CODES.runCancelled, `run ${runId} was cancelled`, data)
    : new LegacyA2AError(JSON_RPC_CODES.runFailed, `run ${runId} failed: ${end.data.error}`, data);
}

/** A JSON-RPC error response. */
export function errorEnvelope(id: string | number | null, code: number, message: string, data?: object) {
  return { jsonrpc: '2.0' as const, id, error: { code, message, ...(data !== undefined && { data }) } };
}

function contextBusyMessage(error: DomainError): string {
  return error.code === 'session_ended'
    ? 'the conversation of this contextId has ended (its session was deleted): send the message without a contextId to start a new one'
    : `${error.message} (one message at a time per contextId)`;
}
