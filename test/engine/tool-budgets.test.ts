import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolBudgetExceededData } from '../../src/domain/run-events.ts';
import type { ToolBudgetsSetting } from '../../src/domain/run-controls.ts';
import {
  DEFAULT_TOOL_BUDGETS,
  effectiveToolBudgets,
  toolBudgets,
} from '../../src/engine/controls/tool-budgets.ts';
import type { HostTool, RunControl } from '../../src/engine/loop/run-control.ts';
import type { RunTool, ToolCallRequest } from '../../src/engine/ports.ts';

function declared(name: string, kind: RunTool['kind'] = 'local'): RunTool {
  return {
    kind,
    name,
    description: name,
    inputSchema: { type: 'object' },
    readOnly: false,
    retain: false,
    callExtras: {},
  };
}

const HOST: HostTool = {
  name: 'recall',
  description: 'a host tool that happens to share a capped name',
  inputSchema: { type: 'object' },
  execute: () => ({ type: 'text', value: '' }),
};

/** One budget control and the calls made to it so far, one turn per `attempts` call. */
function budgeted(setting: ToolBudgetsSetting | undefined, control: RunControl = toolBudgets(setting)) {
  let turn = 0;
  return {
    control,
    /** Makes one turn of calls (by tool name); per call: the exceeded event, or undefined when it runs. */
    attempts(...names: string[]): Array<ToolBudgetExceededData | 'intercepted without event' | undefined> {
      const round: ToolCallRequest[] = names.map((name, index) => ({
        id: `call_${turn}_${index}`,
        name,
        input: {},
      }));
      const results = round.map((call) => {
        const result = control.beforeToolCall?.({ turn, call, round, tool: declared(call.name) });
        if (!result) return undefined;
        if (result.event?.type !== 'tool_budget_exceeded') return 'intercepted without event' as const;
        assert.equal(result.output.type, 'error-text');
        return result.event.data;
      });
      turn++;
      return results;
    },
  };
}

/** How many attempts run before the first interception (up to `limit`). */
function allowedCalls(setting: ToolBudgetsSetting | undefined, tool: string, limit = 20): number {
  const budget = budgeted(setting);
  for (let attempt = 1; attempt <= limit; attempt++) {
    if (budget.attempts(tool)[0] !== undefined) return attempt - 1;
  }
  return limit;
}

describe('tool budgets', () => {
  it('omitted: the spec defaults apply (recall 4, traverse 3, hive_consult_ontology 4, hive_search_* 5; no cap on hive_list_* and hive_get_*)', () => {
    assert.deepEqual(Object.fromEntries(effectiveToolBudgets(undefined)), {
      recall: 4,
      traverse: 3,
      hive_consult_ontology: 4,
      hive_search_deals: 5,
      hive_search_meetings: 5,
      hive_search_companies: 5,
      hive_search_people: 5,
      hive_search_tickets: 5,
      hive_search_conversations: 5,
      hive_search_accounts: 5,
    });
    assert.equal(allowedCalls(undefined, 'recall'), 4);
    assert.equal(allowedCalls(undefined, 'traverse'), 3);
    assert.equal(allowedCalls(undefined, 'hive_search_people'), 5);
    assert.equal(allowedCalls(undefined, 'hive_list_deals'), 20);
    assert.equal(allowedCalls(undefined, 'hive_get_deal'), 20);
    assert.equal(allowedCalls(undefined, 'search'), 20);
  });

  it('caller entries win over the defaults on the same tool; the defaults stay for the others', () => {
    const setting = { recall: { maxCalls: 1 }, search: { maxCalls: 2 } };
    assert.equal(allowedCalls(setting, 'recall'), 1);
    assert.equal(allowedCalls(setting, 'search'), 2);
    assert.equal(allowedCalls(setting, 'traverse'), 3);
    assert.equal(DEFAULT_TOOL_BUDGETS.recall?.maxCalls, 4, 'the defaults are not changed');
  });

  it('{} removes every default', () => {
    assert.deepEqual(effectiveToolBudgets({}).size, 0);
    assert.equal(allowedCalls({}, 'recall'), 20);
    assert.equal(allowedCalls({}, 'hive_search_deals'), 20);
  });

  it('maxCalls 0 disables the tool: its first attempt is intercepted with callIndex 1', () => {
    const budget = budgeted({ search: { maxCalls: 0 } });
    assert.deepEqual(budget.attempts('search'), [{ tool: 'search', maxCalls: 0, callIndex: 1 }]);
  });

  it('callIndex is the 1-based attempt count: every attempt counts, intercepted ones included, within a turn and across turns', () => {
    const budget = budgeted({ search: { maxCalls: 2 } });
    assert.deepEqual(budget.attempts('search'), [undefined]);
    assert.deepEqual(budget.attempts('search', 'search', 'search'), [
      undefined,
      { tool: 'search', maxCalls: 2, callIndex: 3 },
      { tool: 'search', maxCalls: 2, callIndex: 4 },
    ]);
    assert.deepEqual(budget.attempts('search'), [{ tool: 'search', maxCalls: 2, callIndex: 5 }]);
  });

  it('pooling is per tool: one tool spending its budget leaves the others theirs', () => {
    const budget = budgeted({ search: { maxCalls: 1 }, fetch: { maxCalls: 1 } });
    assert.deepEqual(budget.attempts('search', 'fetch'), [undefined, undefined]);
    assert.deepEqual(budget.attempts('search', 'fetch', 'lookup'), [
      { tool: 'search', maxCalls: 1, callIndex: 2 },
      { tool: 'fetch', maxCalls: 1, callIndex: 2 },
      undefined,
    ]);
  });

  it('the synthetic result tells the model to pivot or finalise', () => {
    const control = toolBudgets({ search: { maxCalls: 1 } });
    const call = (id: string) => ({ id, name: 'search', input: {} });
    const round = [call('a'), call('b')];
    control.beforeToolCall?.({ turn: 0, call: round[0]!, round, tool: declared('search') });
    const result = control.beforeToolCall?.({ turn: 0, call: round[1]!, round, tool: declared('search') });
    assert.deepEqual(result?.output, {
      type: 'error-text',
      value:
        'The budget for search (1 call) is spent: do not call it again; use what you have, try another tool, or give your final answer.',
    });
  });

  it('every declared tool kind is capped; host tools are not', () => {
    const control = toolBudgets({ recall: { maxCalls: 0 } });
    const call = { id: 'c', name: 'recall', input: {} };
    for (const kind of ['local', 'mcp_local', 'a2a_local', 'svc', 'svc_plugin', 'mcp', 'a2a'] as const) {
      const result = control.beforeToolCall?.({
        turn: 0,
        call,
        round: [call],
        tool: declared('recall', kind),
      });
      assert.equal(result?.event?.type, 'tool_budget_exceeded', kind);
    }
    assert.equal(control.beforeToolCall?.({ turn: 0, call, round: [call], tool: HOST }), undefined);
  });

  it('snapshot and restore (as plain JSON) continue the counts on another worker', () => {
    const setting = { search: { maxCalls: 2 }, fetch: { maxCalls: 1 } };
    const first = budgeted(setting);
    first.attempts('search', 'fetch');
    const saved: unknown = JSON.parse(JSON.stringify(first.control.snapshot?.()));

    const control = toolBudgets(setting);
    control.restore?.(saved);
    const takeover = budgeted(setting, control);
    assert.deepEqual(takeover.attempts('search', 'fetch', 'search'), [
      undefined,
      { tool: 'fetch', maxCalls: 1, callIndex: 2 },
      { tool: 'search', maxCalls: 2, callIndex: 3 },
    ]);
  });
});
