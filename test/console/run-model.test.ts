import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

/** The console's run model is a browser module with no imports: Node loads it as it is. */
interface RunModule {
  emptyRunModel(): RunModel;
  applyEvent(model: RunModel, event: { seq: number; type: string; data?: Record<string, unknown> }): void;
  statusFromModel(model: RunModel, snapshotStatus: string): string;
  costOf(tokens: Record<string, number> | null, pricing: Record<string, number> | null): number | null;
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- items are the module's plain objects
type RunModel = { items: any[]; plan: any; terminal: any; eventCount: number; lastSeq: number | null };

const runModule = (await import(new URL('../../console/run-model.js', import.meta.url).href)) as RunModule;
const { applyEvent, costOf, emptyRunModel, statusFromModel } = runModule;

function modelOf(events: [string, Record<string, unknown>?][]): RunModel {
  const model = emptyRunModel();
  events.forEach(([type, data], index) => applyEvent(model, { seq: index + 1, type, data: data ?? {} }));
  return model;
}

describe('the console builds a run view from its events (console/run-model.js)', () => {
  it('deltas join one growing text item; the assistant_message replaces them (it is authoritative)', () => {
    const model = modelOf([
      ['assistant_delta', { text: 'Hel' }],
      ['assistant_delta', { text: 'lo' }],
    ]);
    assert.equal(model.items.length, 1);
    assert.equal(model.items[0].text, 'Hello');
    const before = model.items[0];
    applyEvent(model, { seq: 3, type: 'assistant_message', data: { text: 'Hello!', turn: 0 } });
    assert.equal(model.items[0].text, 'Hello!');
    assert.notEqual(model.items[0], before, 'a changed item is a new object (the view redraws only it)');
  });

  it('10,000 deltas are one item, not 10,000', () => {
    const model = emptyRunModel();
    for (let seq = 1; seq <= 10_000; seq += 1)
      applyEvent(model, { seq, type: 'assistant_delta', data: { text: 'w ' } });
    assert.equal(model.items.length, 1);
    assert.equal(model.eventCount, 10_000);
  });

  it('a client tool call is pending (run waiting) until its local_tool_result_in; a server call gets its files and result', () => {
    const model = modelOf([
      ['local_tool_call', { toolUseId: 'c1', name: 'lookup', args: { city: 'Paris' } }],
    ]);
    assert.equal(statusFromModel(model, 'running'), 'waiting');
    assert.deepEqual(model.items[0].input, { city: 'Paris' });
    applyEvent(model, { seq: 2, type: 'local_tool_result_in', data: { toolUseId: 'c1', output: 'Sunny' } });
    assert.equal(model.items[0].pending, false);
    assert.deepEqual(model.items[0].outcome, { ok: true, text: 'Sunny', files: [] });
    assert.equal(statusFromModel(model, 'waiting'), 'running');

    applyEvent(model, {
      seq: 3,
      type: 'tool_call',
      data: { toolUseId: 's1', name: 'fetch', input: { url: 'x' } },
    });
    applyEvent(model, {
      seq: 4,
      type: 'tool_files',
      data: { name: 'fetch', files: [{ filename: 'a.png', mimeType: 'image/png', sizeBytes: 3 }] },
    });
    applyEvent(model, {
      seq: 5,
      type: 'tool_result',
      data: { toolUseId: 's1', name: 'fetch', ok: false, summary: 'HTTP 500' },
    });
    const server = model.items[1];
    assert.equal(server.files.length, 1);
    assert.deepEqual(server.outcome, { ok: false, text: 'HTTP 500' });
  });

  it('plan snapshots apply by planId and revision: an older revision never replaces a newer one', () => {
    const step = (status: string) => [{ id: 's1', title: 'Search', status }];
    const model = modelOf([
      ['task_plan', { planId: 'p', revision: 2, brief: 'b', steps: step('done') }],
      ['task_plan', { planId: 'p', revision: 1, brief: 'b', steps: step('in_progress') }],
    ]);
    assert.equal(model.plan.steps[0].status, 'done');
  });

  it('the terminal event gives the status: result succeeded (or failed for an error subtype), error failed, cancelled', () => {
    assert.equal(
      statusFromModel(modelOf([['result', { subtype: 'success', text: '' }]]), 'running'),
      'succeeded',
    );
    assert.equal(
      statusFromModel(modelOf([['result', { subtype: 'error_local_tool_timeout' }]]), 'running'),
      'failed',
    );
    const timedOut = modelOf([['result', { subtype: 'error_local_tool_timeout', error: 'no answer' }]]);
    assert.deepEqual(
      timedOut.items.map((item) => [item.kind, item.data.error]),
      [['error', 'no answer']],
      'a failed result is shown like an error',
    );
    assert.equal(
      statusFromModel(modelOf([['error', { error: 'boom', code: 'error' }]]), 'running'),
      'failed',
    );
    assert.equal(statusFromModel(modelOf([['cancelled', {}]]), 'running'), 'cancelled');
    assert.equal(statusFromModel(emptyRunModel(), 'queued'), 'queued');
  });

  it('supervisor, loop and budget events and unknown types are shown, never dropped', () => {
    const model = modelOf([
      ['supervisor', { action: 'redirect', reason: 'off track', redirect: 'focus' }],
      ['loop_detected', { consecutiveCount: 3, hardCutoff: false, tools: ['search'] }],
      ['tool_budget_exceeded', { tool: 'search', maxCalls: 2, callIndex: 3 }],
      ['something_new', { x: 1 }],
    ]);
    assert.deepEqual(
      model.items.map((item) => item.kind),
      ['supervisor', 'loop', 'budget', 'unknown'],
    );
  });

  it('cost from catalog pricing: cached input at the cache-read price, the rest at input and output prices', () => {
    const tokens = {
      inputTokens: 1_000_000,
      cachedTokens: 400_000,
      outputTokens: 100_000,
      reasoningTokens: 0,
    };
    const pricing = { inputPer1MUsd: 3, outputPer1MUsd: 15, cacheReadPer1MUsd: 0.3 };
    assert.equal(costOf(tokens, pricing), 0.6 * 3 + 0.4 * 0.3 + 0.1 * 15);
    assert.equal(costOf(tokens, null), null);
  });
});
