import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  EVENT_ROLES,
  hasRole,
  isTerminalEventType,
  TERMINAL_EVENT_TYPES,
  type EventRole,
  type RunEventType,
} from '../../src/domain/run-events.ts';

/**
 * Compile-time checks, run by `npm run typecheck`: the role record covers exactly the event types,
 * so an event type added to `RunEventData` without a role does not compile.
 */
EVENT_ROLES satisfies Record<RunEventType, EventRole>;
// @ts-expect-error an event type the record does not classify fails the record's check
EVENT_ROLES satisfies Record<RunEventType | 'unclassified_event', EventRole>;

describe('EVENT_ROLES: the role of every event type, declared once', () => {
  it('the terminal role is exactly the terminal event types, and isTerminalEventType agrees', () => {
    const terminal = Object.entries(EVENT_ROLES)
      .filter(([, role]) => role === 'terminal')
      .map(([type]) => type);
    assert.deepEqual(terminal.sort(), [...TERMINAL_EVENT_TYPES].sort());
    for (const type of Object.keys(EVENT_ROLES)) {
      assert.equal(isTerminalEventType(type), terminal.includes(type), type);
    }
    assert.equal(isTerminalEventType('not_an_event'), false);
  });

  it('hasRole narrows by the record: deltas are the two streamed texts, tool calls the published calls', () => {
    const types = Object.keys(EVENT_ROLES).filter((type): type is RunEventType => type in EVENT_ROLES);
    assert.deepEqual(
      types.filter((type) => hasRole(type, 'delta')),
      ['assistant_delta', 'thinking_delta'],
    );
    assert.deepEqual(
      types.filter((type) => hasRole(type, 'tool_call')),
      ['tool_call', 'local_tool_call'],
    );
    assert.deepEqual(
      types.filter((type) => hasRole(type, 'tool_answer')),
      ['local_tool_result_in'],
    );
  });
});
