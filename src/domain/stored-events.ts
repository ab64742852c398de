import { isJsonObject } from './json-object.ts';
import type { RunEvent, RunEventData, RunEventType, SerializedRunEvent } from './run-events.ts';

type FieldKind = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'string_or_null';

/**
 * The fields a stored event of each type must have, and their kinds: those every version of the
 * log has written. Fields added later (the terminal events' usage triple and `structuredOutput`)
 * are not required, so logs written before them still decode.
 */
const REQUIRED_FIELDS: { [T in RunEventType]: Partial<Record<keyof RunEventData[T], FieldKind>> } = {
  assistant_delta: { text: 'string' },
  thinking_delta: { text: 'string' },
  assistant_message: { text: 'string', turn: 'number', finishReason: 'string_or_null' },
  tool_call: { toolUseId: 'string', name: 'string' },
  tool_result: { toolUseId: 'string', name: 'string' },
  tool_files: { name: 'string', files: 'array' },
  local_tool_call: { toolUseId: 'string', name: 'string', args: 'object' },
  local_tool_result_in: { toolUseId: 'string', output: 'string' },
  loop_detected: { consecutiveCount: 'number', hardCutoff: 'boolean', tools: 'array' },
  tool_budget_exceeded: { tool: 'string', maxCalls: 'number', callIndex: 'number' },
  supervisor: { action: 'string', reason: 'string', llmCalls: 'number' },
  task_plan: { planId: 'string', revision: 'number', steps: 'array', plan: 'object' },
  result: { subtype: 'string', text: 'string' },
  error: { error: 'string', code: 'string' },
  cancelled: {},
};

/** A stored event that is not what its type says: the log cannot be read as the run's events. */
export class UndecodableEventError extends Error {
  constructor(type: string, problem: string, seq?: number) {
    super(`stored ${type} event${seq === undefined ? '' : ` (seq ${seq})`} does not decode: ${problem}`);
    this.name = 'UndecodableEventError';
  }
}

/** The data of a stored event of `type`, checked against what that type requires. */
export function decodeEventData<T extends RunEventType>(
  type: T,
  dataJson: string,
  seq?: number,
): RunEventData[T] {
  const data = parsed(type, dataJson, seq);
  if (isDataOf(type, data)) return data;
  throw new UndecodableEventError(type, problemOf(type, data) ?? '', seq);
}

/** A stored event as the typed event it records. */
export function decodeRunEvent(event: SerializedRunEvent): RunEvent {
  const candidate = { type: event.type, data: parsed(event.type, event.dataJson, event.seq) };
  if (isRunEvent(candidate)) return candidate;
  throw new UndecodableEventError(event.type, problemOf(event.type, candidate.data) ?? '', event.seq);
}

function parsed(type: string, dataJson: string, seq: number | undefined): unknown {
  try {
    return JSON.parse(dataJson);
  } catch {
    throw new UndecodableEventError(type, 'its data is not JSON', seq);
  }
}

function isDataOf<T extends RunEventType>(type: T, data: unknown): data is RunEventData[T] {
  return problemOf(type, data) === undefined;
}

function isRunEvent(event: { type: RunEventType; data: unknown }): event is RunEvent {
  return problemOf(event.type, event.data) === undefined;
}

/** What is wrong with `data` for an event of `type`, if anything. */
function problemOf(type: RunEventType, data: unknown): string | undefined {
  if (!isJsonObject(data)) return 'its data is not an object';
  for (const [field, kind] of Object.entries(REQUIRED_FIELDS[type])) {
    if (!hasKind(data[field], kind)) return `field ${field} is not ${kindName(kind)}`;
  }
  return undefined;
}

function hasKind(value: unknown, kind: FieldKind): boolean {
  switch (kind) {
    case 'string_or_null':
      return value === null || typeof value === 'string';
    case 'object':
      return isJsonObject(value);
    case 'array':
      return Array.isArray(value);
    default:
      return typeof value === kind;
  }
}

function kindName(kind: FieldKind): string {
  return kind === 'string_or_null'
    ? 'a string or null'
    : kind === 'object'
      ? 'an object'
      : `a${kind === 'array' ? 'n' : ''} ${kind}`;
}
