/**
 * A run's view built from its events, one at a time and in `seq` order. Items are replaced (never
 * changed in place) when an event updates them, so a view can redraw only the items that changed.
 * Deltas join the open text or thinking item: ten thousand deltas are one growing item, not ten
 * thousand elements.
 */

export const TERMINAL_TYPES = new Set(['result', 'error', 'cancelled']);

export function emptyRunModel() {
  return {
    items: [],
    /** Index in `items` of the text or thinking item that deltas extend, or -1. */
    openText: -1,
    openThinking: -1,
    /** toolUseId → index in `items`. */
    tools: new Map(),
    plan: null,
    terminal: null,
    lastSeq: null,
    eventCount: 0,
  };
}

function push(model, item) {
  model.items.push(item);
  return model.items.length - 1;
}

function replace(model, index, changes) {
  const item = model.items[index];
  model.items[index] = { ...item, ...changes };
}

function closeOpen(model) {
  model.openText = -1;
  model.openThinking = -1;
}

export function applyEvent(model, event) {
  const { seq, type } = event;
  const data = event.data ?? {};
  model.lastSeq = seq;
  model.eventCount += 1;
  switch (type) {
    case 'assistant_delta':
      model.openThinking = -1;
      if (model.openText === -1)
        model.openText = push(model, { kind: 'text', key: `t${seq}`, text: data.text ?? '' });
      else replace(model, model.openText, { text: model.items[model.openText].text + (data.text ?? '') });
      return;
    case 'thinking_delta':
      if (model.openThinking === -1)
        model.openThinking = push(model, { kind: 'thinking', key: `k${seq}`, text: data.text ?? '' });
      else
        replace(model, model.openThinking, {
          text: model.items[model.openThinking].text + (data.text ?? ''),
        });
      return;
    case 'assistant_message': {
      // The message is authoritative over the deltas streamed before it (after a takeover they may differ).
      const text = typeof data.text === 'string' ? data.text : '';
      if (model.openText !== -1)
        replace(model, model.openText, { text, turn: data.turn, finishReason: data.finishReason });
      else if (text !== '')
        push(model, { kind: 'text', key: `t${seq}`, text, turn: data.turn, finishReason: data.finishReason });
      closeOpen(model);
      return;
    }
    case 'tool_call':
    case 'local_tool_call': {
      closeOpen(model);
      const client = type === 'local_tool_call';
      const index = push(model, {
        kind: 'tool',
        key: `c${seq}`,
        toolUseId: data.toolUseId,
        name: data.name,
        toolKind: client ? (data.kind ?? 'local') : 'server',
        client,
        input: client ? data.args : data.input,
        pending: true,
        outcome: null,
        files: [],
      });
      model.tools.set(data.toolUseId, index);
      return;
    }
    case 'tool_files': {
      closeOpen(model);
      const index = findLatestTool(model, (item) => item.name === data.name && item.pending && !item.client);
      if (index !== -1)
        replace(model, index, { files: [...model.items[index].files, ...(data.files ?? [])] });
      else push(model, { kind: 'files', key: `f${seq}`, name: data.name, files: data.files ?? [] });
      return;
    }
    case 'tool_result':
    case 'local_tool_result_in': {
      closeOpen(model);
      const outcome =
        type === 'tool_result'
          ? { ok: data.ok ?? !data.isError, text: data.summary ?? data.result ?? '' }
          : { ok: !data.isError, text: data.output ?? '', files: data.files ?? [] };
      const index = model.tools.get(data.toolUseId);
      if (index !== undefined) replace(model, index, { pending: false, outcome });
      else
        push(model, {
          kind: 'tool',
          key: `r${seq}`,
          toolUseId: data.toolUseId,
          name: data.name ?? '',
          client: type !== 'tool_result',
          input: undefined,
          pending: false,
          outcome,
          files: [],
        });
      return;
    }
    case 'task_plan':
      model.plan = newerPlan(model.plan, data);
      return;
    case 'supervisor':
      closeOpen(model);
      push(model, {
        kind: 'supervisor',
        key: `s${seq}`,
        action: data.action,
        reason: data.reason,
        redirect: data.redirect,
        phase: data.phase,
      });
      return;
    case 'loop_detected':
      closeOpen(model);
      push(model, {
        kind: 'loop',
        key: `l${seq}`,
        consecutiveCount: data.consecutiveCount,
        hardCutoff: data.hardCutoff,
        tools: data.tools ?? [],
      });
      return;
    case 'tool_budget_exceeded':
      closeOpen(model);
      push(model, {
        kind: 'budget',
        key: `b${seq}`,
        tool: data.tool,
        maxCalls: data.maxCalls,
        callIndex: data.callIndex,
      });
      return;
    case 'result':
    case 'error':
    case 'cancelled':
      closeOpen(model);
      model.terminal = { type, data };
      for (const [, index] of model.tools)
        if (model.items[index].pending) replace(model, index, { pending: false });
      if (type !== 'result') push(model, { kind: type, key: `e${seq}`, data });
      // A result with a failure subtype (a client tool that never answered) is shown like an error.
      else if (data.subtype && data.subtype !== 'success')
        push(model, {
          kind: 'error',
          key: `e${seq}`,
          data: { errorClass: data.subtype, error: data.error ?? data.subtype },
        });
      return;
    default:
      // An event type this console does not know: shown as it came, never dropped silently.
      closeOpen(model);
      push(model, { kind: 'unknown', key: `u${seq}`, type, data });
  }
}

function findLatestTool(model, predicate) {
  for (let index = model.items.length - 1; index >= 0; index -= 1) {
    const item = model.items[index];
    if (item.kind === 'tool' && predicate(item)) return index;
  }
  return -1;
}

/** Plan snapshots apply idempotently by `planId` and `revision`; older payloads have neither. */
function newerPlan(current, data) {
  const steps = data.plan?.steps ?? data.steps ?? [];
  const next = {
    planId: data.planId ?? null,
    revision: data.revision ?? 0,
    brief: data.plan?.brief ?? data.brief ?? '',
    steps,
  };
  if (current && current.planId === next.planId && next.revision < current.revision) return current;
  return next;
}

/** The run's status as its events tell it, when they tell more than the snapshot. */
export function statusFromModel(model, snapshotStatus) {
  const { terminal } = model;
  if (terminal) {
    if (terminal.type === 'cancelled') return 'cancelled';
    if (terminal.type === 'error') return 'failed';
    return terminal.data.subtype && terminal.data.subtype !== 'success' ? 'failed' : 'succeeded';
  }
  for (const [, index] of model.tools) {
    const item = model.items[index];
    if (item.client && item.pending) return 'waiting';
  }
  if (model.eventCount > 0) return 'running';
  return snapshotStatus;
}

/** Cost in USD from the catalog's pricing (per million tokens), or null without pricing or usage. */
export function costOf(tokens, pricing) {
  if (!tokens || !pricing) return null;
  const cached = tokens.cachedTokens ?? 0;
  const fresh = Math.max(0, (tokens.inputTokens ?? 0) - cached);
  const cacheRate = pricing.cacheReadPer1MUsd ?? pricing.inputPer1MUsd ?? 0;
  return (
    (fresh * (pricing.inputPer1MUsd ?? 0) +
      cached * cacheRate +
      (tokens.outputTokens ?? 0) * (pricing.outputPer1MUsd ?? 0)) /
    1_000_000
  );
}
