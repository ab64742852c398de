import {
  defaultFinishReason,
  splitIntoPieces,
  startScriptedServer,
  type FakeProviderServer,
  type ScriptedReply,
  type ScriptedTurn,
  type ScriptedUsage,
  type SseEvent,
  type WireFormat,
} from './scripted-reply.ts';

/** A text reply's events up to its first text delta (message_start, ping, content_block_start, the delta). */
export const EVENTS_THROUGH_FIRST_TEXT = 4;

/** A fake Anthropic Messages API server (POST /v1/messages), usable by `@ai-sdk/anthropic`. */
export function startFakeAnthropic(script: ScriptedReply[] = []): Promise<FakeProviderServer> {
  return startScriptedServer(anthropicWire, script);
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const DEFAULT_SIGNATURE = 'fake-thinking-signature';
let messageCounter = 0;

/** Anthropic's input_tokens excludes cache reads, which are reported separately. */
function inputUsage(usage: ScriptedUsage | undefined) {
  const cached = usage?.cachedTokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.inputTokens ?? 0) - cached),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}

function outputUsage(usage: ScriptedUsage | undefined) {
  const reasoning = usage?.reasoningTokens;
  return {
    output_tokens: usage?.outputTokens ?? 0,
    ...(reasoning === undefined ? {} : { output_tokens_details: { thinking_tokens: reasoning } }),
  };
}

function modelOf(body: Record<string, unknown>): string {
  return typeof body.model === 'string' ? body.model : 'fake-model';
}

/** One content block's start payload and its deltas, in the order Anthropic streams them. */
interface BlockPlan {
  start: Record<string, unknown>;
  deltas: Record<string, unknown>[];
}

function blockPlans(turn: ScriptedTurn): BlockPlan[] {
  const plans: BlockPlan[] = [];
  if (turn.thinking !== undefined) {
    plans.push({
      start: { type: 'thinking', thinking: '', signature: '' },
      deltas: [
        ...turn.thinking.map((thinking) => ({ type: 'thinking_delta', thinking })),
        { type: 'signature_delta', signature: turn.thinkingSignature ?? DEFAULT_SIGNATURE },
      ],
    });
  }
  if (turn.text !== undefined) {
    plans.push({
      start: { type: 'text', text: '' },
      deltas: turn.text.map((text) => ({ type: 'text_delta', text })),
    });
  }
  for (const call of turn.toolCalls ?? []) {
    // The real API opens every tool_use block with an empty partial_json.
    const pieces = ['', ...splitIntoPieces(JSON.stringify(call.input))];
    plans.push({
      start: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      deltas: pieces.map((partial_json) => ({ type: 'input_json_delta', partial_json })),
    });
  }
  return plans;
}

function sse(data: Record<string, unknown>): SseEvent {
  return { event: String(data.type), data };
}

const anthropicWire: WireFormat = {
  endpoint: '/v1/messages',

  wantsStream: (body) => body.stream === true,

  streamEvents(turn, body) {
    const message = {
      id: `msg_fake${++messageCounter}`,
      type: 'message',
      role: 'assistant',
      model: modelOf(body),
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...inputUsage(turn.usage), output_tokens: 1 },
    };
    const events = [sse({ type: 'message_start', message }), sse({ type: 'ping' })];
    for (const [index, plan] of blockPlans(turn).entries()) {
      events.push(sse({ type: 'content_block_start', index, content_block: plan.start }));
      for (const delta of plan.deltas) events.push(sse({ type: 'content_block_delta', index, delta }));
      events.push(sse({ type: 'content_block_stop', index }));
    }
    events.push(
      sse({
        type: 'message_delta',
        delta: { stop_reason: defaultFinishReason(turn), stop_sequence: null },
        usage: outputUsage(turn.usage),
      }),
      sse({ type: 'message_stop' }),
    );
    return events;
  },

  jsonResponse(turn, body) {
    const content: Record<string, unknown>[] = [];
    if (turn.thinking !== undefined) {
      const signature = turn.thinkingSignature ?? DEFAULT_SIGNATURE;
      content.push({ type: 'thinking', thinking: turn.thinking.join(''), signature });
    }
    if (turn.text !== undefined) content.push({ type: 'text', text: turn.text.join('') });
    for (const call of turn.toolCalls ?? []) {
      content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input });
    }
    return {
      id: `msg_fake${++messageCounter}`,
      type: 'message',
      role: 'assistant',
      model: modelOf(body),
      content,
      stop_reason: defaultFinishReason(turn),
      stop_sequence: null,
      usage: { ...inputUsage(turn.usage), ...outputUsage(turn.usage) },
    };
  },

  errorBody(status, message) {
    const type = ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
    return { type: 'error', error: { type, message }, request_id: `req_fake${status}` };
  },
};
