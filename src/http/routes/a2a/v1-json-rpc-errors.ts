import { ERROR_INFO_TYPE, isJsonRpcError, type ErrorDetail } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import { isJsonObject } from '../../../domain/json-object.ts';

/** The domain of the service's own `ErrorInfo` in a 1.0 error's details. */
export const SERVICE_ERROR_DOMAIN = 'agent-runs';

export interface V1JsonRpcError {
  code: number;
  message: string;
  data?: ErrorDetail[];
}

/**
 * An error as A2A 1.0 JSON-RPC answers it: the SDK's mapping (`data` is a list of details, with
 * A2A's own `ErrorInfo` for A2A's conditions), plus the service's `ErrorInfo` carrying what `data`
 * holds in v0.3: `reason` is the service's code upper-cased (`RUN_FAILED`), `metadata` its fields
 * as strings (`{ error: "run_failed", runId, … }`), `domain` `agent-runs`.
 */
export function v1JsonRpcError(error: unknown): V1JsonRpcError {
  const mapped = JsonRpcTransportHandler.mapToJSONRPCError(error);
  const serviceData = isJsonRpcError(error) && isJsonObject(error.data) ? error.data : undefined;
  if (serviceData === undefined || typeof serviceData.error !== 'string') return mapped;
  const detail: ErrorDetail = {
    '@type': ERROR_INFO_TYPE,
    reason: serviceData.error.toUpperCase(),
    domain: SERVICE_ERROR_DOMAIN,
    metadata: Object.fromEntries(
      Object.entries(serviceData).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.join(',') : String(value),
      ]),
    ),
  };
  return { ...mapped, data: [...(mapped.data ?? []), detail] };
}

/** A JSON-RPC error response of A2A 1.0. */
export function v1ErrorResponse(id: string | number | null, error: unknown) {
  return { jsonrpc: '2.0' as const, id, error: v1JsonRpcError(error) };
}
