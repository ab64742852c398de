import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEventType, SerializedRunEvent } from '../../src/domain/run-events.ts';
import { UndecodableEventError } from '../../src/domain/stored-events.ts';
import type { StoredCheckpoint } from '../../src/engine/ports.ts';
import { eventKey, resumePointOf, type ResumePoint } from '../../src/engine/takeover/resume-point.ts';
import type { RunCheckpointState } from '../../src/engine/takeover/run-checkpoint.ts';

/** `resumePointOf` reads only whether there is a checkpoint, never its state. */
const CHECKPOINT: StoredCheckpoint<RunCheckpointState> = { seq: 4, state: {} as RunCheckpointState };

function logged(...events: Array<[RunEventType, unknown]>): SerializedRunEvent[] {
  return events.map(([type, data], index) => ({
    seq: CHECKPOINT.seq + 1 + index,
    type,
    dataJson: JSON.stringify(data),
  }));
}

const delta = (text: string): [RunEventType, unknown] => ['assistant_delta', { text }];
const thought = (text: string): [RunEventType, unknown] => ['thinking_delta', { text }];
const assistantMessage: [RunEventType, unknown] = [
  'assistant_message',
  { text: '', turn: 0, finishReason: 'tool_use' },
];
const localCall = (toolUseId: string): [RunEventType, unknown] => [
  'local_tool_call',
  { toolUseId, name: 'lookup', args: {} },
];
const localAnswer = (toolUseId: string): [RunEventType, unknown] => [
  'local_tool_result_in',
  { toolUseId, output: 'ok' },
];
const budgetExceeded: [RunEventType, unknown] = [
  'tool_budget_exceeded',
  { tool: 'lookup', maxCalls: 1, callIndex: 2 },
];
const loopDetected: [RunEventType, unknown] = [
  'loop_detected',
  { consecutiveCount: 3, hardCutoff: false, tools: ['x'] },
];
const supervisorReview: [RunEventType, unknown] = [
  'supervisor',
  { action: 'on_track', reason: 'fine', llmCalls: 1 },
];
const taskPlan: [RunEventType, unknown] = [
  'task_plan',
  {
    v: 2,
    planId: 'p',
    revision: 1,
    brief: 'b',
    steps: [],
    plan: { v: 2, planId: 'p', revision: 1, mode: 'optional', brief: 'b', steps: [] },
  },
];

const nothingLogged: Omit<ResumePoint, 'checkpoint'> = {
  published: new Set(),
  echoed: new Set(),
  announced: new Set(),
  assistantMessageSent: false,
  partialText: '',
  partialThinking: '',
};

describe('the resume point of a run taken over', () => {
  const resumable: Array<{
    rule: string;
    checkpoint: StoredCheckpoint<RunCheckpointState> | undefined;
    after: SerializedRunEvent[];
    expected: Partial<ResumePoint>;
  }> = [
    {
      rule: 'nothing after the checkpoint: the pending round from its start',
      checkpoint: CHECKPOINT,
      after: [],
      expected: {},
    },
    {
      rule: 'no checkpoint and an empty log: the run from its start',
      checkpoint: undefined,
      after: [],
      expected: {},
    },
    {
      rule: "the pending round's assistant_message, calls and answers after the checkpoint are what it already sent",
      checkpoint: CHECKPOINT,
      after: logged(assistantMessage, localCall('a'), localCall('b'), localAnswer('a')),
      expected: { assistantMessageSent: true, published: new Set(['a', 'b']), echoed: new Set(['a']) },
    },
    {
      rule: 'the deltas of a turn cut short are the text and thoughts the client already has',
      checkpoint: CHECKPOINT,
      after: logged(thought('hm'), delta('Hel'), thought('m'), delta('lo')),
      expected: { partialText: 'Hello', partialThinking: 'hmm' },
    },
    {
      rule: 'the deltas of a first turn cut short need no checkpoint',
      checkpoint: undefined,
      after: logged(delta('Hi')),
      expected: { partialText: 'Hi' },
    },
    {
      rule: "round events, then the next turn's deltas",
      checkpoint: CHECKPOINT,
      after: logged(assistantMessage, localCall('a'), localAnswer('a'), delta('so')),
      expected: {
        assistantMessageSent: true,
        published: new Set(['a']),
        echoed: new Set(['a']),
        partialText: 'so',
      },
    },
    {
      rule: 'announcements of the round are collected by eventKey (type and data)',
      checkpoint: CHECKPOINT,
      after: logged(assistantMessage, budgetExceeded, loopDetected, supervisorReview, taskPlan),
      expected: {
        assistantMessageSent: true,
        announced: new Set(
          [budgetExceeded, loopDetected, supervisorReview, taskPlan].map(([type, data]) =>
            eventKey(type, JSON.stringify(data)),
          ),
        ),
      },
    },
  ];
  for (const { rule, checkpoint, after, expected } of resumable) {
    it(rule, () => {
      assert.deepEqual(resumePointOf(checkpoint, after), { checkpoint, ...nothingLogged, ...expected });
    });
  }

  it('the same announcement with other data is another key', () => {
    const point = resumePointOf(CHECKPOINT, logged(budgetExceeded));
    assert.ok(point?.announced.has(eventKey('tool_budget_exceeded', JSON.stringify(budgetExceeded[1]))));
    assert.ok(!point?.announced.has(eventKey('tool_budget_exceeded', JSON.stringify({ tool: 'lookup' }))));
    assert.ok(!point?.announced.has(eventKey('loop_detected', JSON.stringify(budgetExceeded[1]))));
  });

  it('server calls of the pending round: a tool_call marks its call as started (never executed again); tool_files and tool_result are announcements not sent twice', () => {
    const result = { toolUseId: 's1', name: 'search', ok: true, summary: 'found' };
    const files = {
      name: 'search',
      files: [{ filename: 'a.png', mimeType: 'image/png', sizeBytes: 3, storageKey: 'k' }],
    };
    const point = resumePointOf(
      CHECKPOINT,
      logged(
        assistantMessage,
        ['tool_call', { toolUseId: 's1', name: 'search', input: {} }],
        ['tool_call', { toolUseId: 's2', name: 'search', input: {} }],
        ['tool_files', files],
        ['tool_result', result],
      ),
    );
    assert.ok(point);
    assert.deepEqual([...point.published].sort(), ['s1', 's2']);
    assert.ok(point.announced.has(eventKey('tool_result', JSON.stringify(result))));
    assert.ok(point.announced.has(eventKey('tool_files', JSON.stringify(files))));
  });

  it('a seeded plan before the first checkpoint and a review in the middle of a turn are recorded, and the run resumes', () => {
    const seeded = ['task_plan', { v: 2, planId: 'plan_1', revision: 1 }] as [RunEventType, unknown];
    const point = resumePointOf(undefined, logged(seeded, thought('hm'), supervisorReview, delta('Hi')));
    assert.ok(point, 'resumable');
    assert.ok(point.announced.has(eventKey('task_plan', JSON.stringify(seeded[1]))));
    assert.ok(point.announced.has(eventKey('supervisor', JSON.stringify(supervisorReview[1]))));
    assert.equal(point.partialText, 'Hi');
    assert.equal(point.partialThinking, 'hm');
  });

  it('a delta or a call in the log that does not decode is an error naming the event, never a silent cast', () => {
    assert.throws(
      () => resumePointOf(CHECKPOINT, logged(['assistant_delta', { text: 7 }])),
      (error: unknown) =>
        error instanceof UndecodableEventError &&
        error.message === 'stored assistant_delta event (seq 5) does not decode: field text is not a string',
    );
    assert.throws(
      () => resumePointOf(CHECKPOINT, logged(assistantMessage, ['local_tool_result_in', { output: 'ok' }])),
      /stored local_tool_result_in event \(seq 6\) does not decode: field toolUseId is not a string/,
    );
  });

  const notResumable: Array<{
    rule: string;
    checkpoint: StoredCheckpoint<RunCheckpointState> | undefined;
    after: SerializedRunEvent[];
  }> = [
    {
      rule: 'round events after the deltas of a turn',
      checkpoint: CHECKPOINT,
      after: logged(delta('a'), assistantMessage),
    },
    {
      rule: 'a local call after the deltas of a turn',
      checkpoint: CHECKPOINT,
      after: logged(thought('a'), localCall('x')),
    },
    { rule: 'round events without a checkpoint', checkpoint: undefined, after: logged(assistantMessage) },
    {
      rule: 'a server tool call after the deltas of a turn',
      checkpoint: CHECKPOINT,
      after: logged(delta('a'), ['tool_call', { toolUseId: 't', name: 'n', input: {} }]),
    },
    {
      rule: 'a server tool call without a checkpoint',
      checkpoint: undefined,
      after: logged(['tool_call', { toolUseId: 't', name: 'n', input: {} }]),
    },
    {
      rule: 'a terminal event',
      checkpoint: CHECKPOINT,
      after: logged(['result', { subtype: 'success', text: '' }]),
    },
    {
      rule: 'anything else after round events',
      checkpoint: CHECKPOINT,
      after: logged(assistantMessage, ['error', { error: 'x', code: 'y' }]),
    },
  ];
  for (const { rule, checkpoint, after } of notResumable) {
    it(`cannot resume: ${rule}`, () => {
      assert.equal(resumePointOf(checkpoint, after), undefined);
    });
  }
});
