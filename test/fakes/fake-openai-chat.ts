import {
  defaultFinishReason,
  splitIntoPieces,
  startScriptedServer,
  type FakeProviderServer,
  type NeutralFinishReason,
  type ScriptedReply,
  type ScriptedTurn,
  type ScriptedUsage,
  type SseEvent,
  type WireFormat,
} from './scripted-reply.ts';

/** A text reply's events up to its first text delta: the first chunk carries it, with the role. */
export const EVENTS_THROUGH_FIRST_TEXT = 1;

/**
 * A fake OpenAI Chat Completions server (POST /v1/chat/completions), usable by both
 * `@ai-sdk/openai` (`.chat()`) and `@ai-sdk/openai-compatible`. Thinking is sent as
 * `reasoning_content` (the DeepSeek/vLLM convention the compatible provider reads).
 */
export function startFakeOpenAIChat(script: ScriptedReply[] = []): Promise<FakeProviderServer> {
  return startScriptedServer(openAIChatWire, script);
}

const FINISH_REASONS: Record<NeutralFinishReason, string> = {
  end_turn: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

const ERROR_KINDS: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  503: { type: 'server_error', code: 'service_unavailable' },
};

let completionCounter = 0;

function wireUsage(usage: ScriptedUsage | undefined) {
  const { inputTokens = 0, outputTokens = 0, cachedTokens = 0, reasoningTokens = 0 } = usage ?? {};
  return {
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
  };
}

function envelope(body: Record<string, unknown>) {
  return {
    id: `chatcmpl-fake${++completionCounter}`,
    created: Math.floor(Date.now() / 1000),
    model: typeof body.model === 'string' ? body.model : 'fake-model',
    system_fingerprint: 'fp_fake',
  };
}

/** The deltas of one turn, in wire order: reasoning, text, then each tool call's name and argument pieces. */
function deltas(turn: ScriptedTurn): Record<string, unknown>[] {
  const result: Record<string, unknown>[] = [];
  const reasoning = (turn.thinking ?? []).map((piece) => ({ reasoning_content: piece }));
  if (!turn.thinkingAfterText) result.push(...reasoning);
  for (const piece of turn.text ?? []) result.push({ content: piece });
  if (turn.thinkingAfterText) result.push(...reasoning);
  for (const [index, call] of (turn.toolCalls ?? []).entries()) {
    const start = { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
    result.push({ tool_calls: [start] });
    for (const piece of splitIntoPieces(JSON.stringify(call.input))) {
      result.push({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  }
  return result;
}

const openAIChatWire: WireFormat = {
  endpoint: '/v1/chat/completions',

  wantsStream: (body) => body.stream === true,

  streamEvents(turn, body) {
    const base = { ...envelope(body), object: 'chat.completion.chunk' };
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): SseEvent => ({
      data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] },
    });
    const turnDeltas = deltas(turn);
    const [first = { content: '' }, ...rest] = turnDeltas;
    const events = [chunk({ role: 'assistant', ...first }), ...rest.map((delta) => chunk(delta))];
    events.push(chunk({}, FINISH_REASONS[defaultFinishReason(turn)]));
    const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
    if (streamOptions?.include_usage === true) {
      events.push({ data: { ...base, choices: [], usage: wireUsage(turn.usage) } });
    }
    events.push({ data: '[DONE]' });
    return events;
  },

  jsonResponse(turn, body) {
    const toolCalls = (turn.toolCalls ?? []).map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.input) },
    }));
    const message = {
      role: 'assistant',
      content: turn.text === undefined ? null : turn.text.join(''),
      refusal: null,
      ...(turn.thinking === undefined ? {} : { reasoning_content: turn.thinking.join('') }),
      ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
    };
    const finishReason = FINISH_REASONS[defaultFinishReason(turn)];
    return {
      ...envelope(body),
      object: 'chat.completion',
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
      usage: wireUsage(turn.usage),
    };
  },

  errorBody(status, message) {
    const kind = ERROR_KINDS[status] ?? {
      type: status >= 500 ? 'server_error' : 'invalid_request_error',
      code: null,
    };
    return { error: { message, type: kind.type, param: null, code: kind.code } };
  },
};
