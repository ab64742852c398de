import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FollowedRunEvent } from '../../src/engine/log/run-event-follower.ts';
import { RunEventTranslator } from '../../src/http/routes/ag-ui/run-event-translator.ts';

const USAGE = {
  tokens: { inputTokens: 10, cachedTokens: 0, reasoningTokens: 0, outputTokens: 5 },
  turns: 1,
  model: { id: 'anthropic/fake', provider: 'anthropic', vendorModelId: 'fake' },
};
const RUN = { threadId: 't1', inputRunId: 'front-1', runId: 'run_1', sessionId: 'session_1' };

/** Translates a whole log, as the follower hands it over, into the AG-UI event types and events. */
function translate(log: FollowedRunEvent[], answered: string[] = []) {
  const translator = new RunEventTranslator({ ...RUN, answered });
  const events = log.flatMap((event) => translator.translate(event));
  return { events, types: events.map((event) => event.type), done: translator.done, translator };
}

let seq = 0;
const at = <T extends FollowedRunEvent['type']>(
  type: T,
  data: Extract<FollowedRunEvent, { type: T }>['data'],
): FollowedRunEvent => ({ type, data, seq: ++seq }) as FollowedRunEvent;

describe('AG-UI run-event translator (extensions §11): one module from the run log to AG-UI events', () => {
  const waitingLog = () => [
    at('assistant_message', {
      text: '',
      turn: 0,
      finishReason: 'tool_use',
      toolCalls: [{ id: 'c1', name: 'confirm', input: {} }],
    }),
    at('local_tool_call', { toolUseId: 'c1', name: 'confirm', args: { q: 1 }, kind: 'local' }),
  ];

  it('a frontend tool call ends the stream: nothing after it is translated', () => {
    const { types, done, events } = translate([
      ...waitingLog(),
      at('local_tool_result_in', { toolUseId: 'c1', output: 'yes' }),
      at('assistant_delta', { text: 'Done.' }),
    ]);
    assert.deepEqual(types, ['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'RUN_FINISHED']);
    assert.equal(done, true);
    assert.deepEqual((events.at(-1) as { outcome?: unknown }).outcome, {
      type: 'success',
      pendingToolCallIds: ['c1'],
    });
  });

  it('the continuation after an answer starts after its echo, with message ids counting the turns before it', () => {
    const { types, events } = translate(
      [
        ...waitingLog(),
        at('local_tool_result_in', { toolUseId: 'c1', output: 'yes' }),
        at('assistant_delta', { text: 'Done.' }),
        at('assistant_message', { text: 'Done.', turn: 1, finishReason: 'end_turn' }),
        at('result', { subtype: 'success', text: 'Done.', structuredOutput: NO_SCHEMA, ...USAGE }),
      ],
      ['c1'],
    );
    assert.deepEqual(types, [
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    assert.equal((events[0] as { messageId?: string }).messageId, 'run_1:turn-1');
  });

  it('cancelled is RUN_FINISHED with the cancelled outcome; a frontend tool that timed out is RUN_ERROR', () => {
    const cancelled = translate([at('cancelled', { reason: 'user', ...USAGE })]);
    assert.deepEqual(cancelled.types, ['RUN_FINISHED']);
    assert.deepEqual((cancelled.events[0] as { outcome?: unknown }).outcome, { type: 'cancelled' });
    const timedOut = translate([
      at('result', {
        subtype: 'error_local_tool_timeout',
        text: '',
        error: 'no answer',
        structuredOutput: NO_SCHEMA,
        ...USAGE,
      }),
    ]);
    assert.deepEqual(timedOut.types, ['RUN_ERROR']);
    assert.equal((timedOut.events[0] as { code?: string }).code, 'error_local_tool_timeout');
  });

  it('a stream left before the run ended closes its open text message and ends with RUN_ERROR unavailable', () => {
    const { translator, types } = translate([at('assistant_delta', { text: 'Hal' })]);
    const left = translator.left();
    assert.deepEqual(
      [...types, ...left.map((event) => event.type)],
      ['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_ERROR'],
    );
    assert.equal((left.at(-1) as { code?: string }).code, 'unavailable');
    assert.deepEqual(translator.left(), [], 'the end is given once');
  });

  it('RUN_STARTED echoes the input run id; the service run and session ids are in rawEvent and metadata', () => {
    const started = new RunEventTranslator({ ...RUN, answered: [] }).started() as Record<string, unknown>;
    assert.equal(started.runId, 'front-1');
    assert.deepEqual(started.rawEvent, { runId: 'run_1', sessionId: 'session_1' });
    assert.deepEqual(started.metadata, { 'agent-runs/runId': 'run_1', 'agent-runs/sessionId': 'session_1' });
  });
});

const NO_SCHEMA = {
  schemaRequested: false,
  schemaEnforced: false,
  enforcementMechanism: 'none' as const,
  unconstrainedFallbackOccurred: false,
};
