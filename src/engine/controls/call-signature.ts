import type { ToolCallRequest } from '../ports.ts';

/**
 * JSON text of a value with every object's keys sorted, recursively: two
 * arguments that differ only in key order give the same text.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(withSortedKeys(value)) ?? 'null';
}

function withSortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withSortedKeys);
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((key) => [key, withSortedKeys(object[key])]),
  );
}

/**
 * The order-invariant signature of a batch of tool calls: the multiset of
 * (tool name, canonical arguments), sorted. Two turns that make the same
 * calls in another order, with keys in another order, have one signature.
 */
export function batchSignature(calls: readonly Pick<ToolCallRequest, 'name' | 'input'>[]): string {
  return JSON.stringify(calls.map((call) => JSON.stringify([call.name, canonicalJson(call.input)])).sort());
}
