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

/**
 * A fake OpenAI Responses API server (POST /v1/responses), usable by `@ai-sdk/openai`'s
 * `.responses()` model. Streams the real event sequence: `response.created`,
 * `response.in_progress`, then one output item per part of the turn (a `reasoning` item with
 * summary deltas for thinking, a `message` item with `output_text` deltas — or `refusal` deltas
 * for a refusal — and one `function_call` item per tool call with argument deltas), each opened
 * by `response.output_item.added` and closed by `response.output_item.done`, and finally
 * `response.completed` (or `response.incomplete` with `incomplete_details.reason
 * max_output_tokens` for a `max_tokens` turn) carrying the usage.
 */
export function startFakeOpenAIResponses(script: ScriptedReply[] = []): Promise<FakeProviderServer> {
  return startScriptedServer(openAIResponsesWire, script);
}

const ERROR_KINDS: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  503: { type: 'server_error', code: 'service_unavailable' },
};

let responseCounter = 0;

/** Ids shaped like OpenAI's (`resp_…`, `rs_…`, `msg_…`, `fc_…`), unique per process. */
function itemId(prefix: string, response: number, index: number): string {
  return `${prefix}_fake${response.toString(16).padStart(8, '0')}${index.toString(16).padStart(4, '0')}`;
}

function wireUsage(usage: ScriptedUsage | undefined) {
  const { inputTokens = 0, outputTokens = 0, cachedTokens = 0, reasoningTokens = 0 } = usage ?? {};
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: cachedTokens },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: inputTokens + outputTokens,
  };
}

/** The parts of one turn in wire order, with the ids and final contents of their output items. */
interface TurnPlan {
  responseId: string;
  createdAt: number;
  model: string;
  reasoning?: { id: string; pieces: string[] };
  message?: { id: string; pieces: string[]; refusal: boolean };
  calls: { id: string; callId: string; name: string; arguments: string }[];
  incomplete: boolean;
}

function planTurn(turn: ScriptedTurn, body: Record<string, unknown>): TurnPlan {
  const response = ++responseCounter;
  const finish = defaultFinishReason(turn);
  let index = 0;
  return {
    responseId: itemId('resp', response, 0),
    createdAt: Math.floor(Date.now() / 1000),
    model: typeof body.model === 'string' ? body.model : 'fake-model',
    ...(turn.thinking !== undefined && {
      reasoning: { id: itemId('rs', response, ++index), pieces: turn.thinking },
    }),
    ...(turn.text !== undefined && {
      message: { id: itemId('msg', response, ++index), pieces: turn.text, refusal: finish === 'refusal' },
    }),
    calls: (turn.toolCalls ?? []).map((call) => ({
      id: itemId('fc', response, ++index),
      callId: call.id,
      name: call.name,
      arguments: JSON.stringify(call.input),
    })),
    incomplete: finish === 'max_tokens',
  };
}

function reasoningItem(plan: NonNullable<TurnPlan['reasoning']>, done: boolean) {
  const text = plan.pieces.join('');
  return {
    id: plan.id,
    type: 'reasoning',
    summary: done && plan.pieces.length > 0 ? [{ type: 'summary_text', text }] : [],
  };
}

function contentPart(message: NonNullable<TurnPlan['message']>, text: string) {
  return message.refusal
    ? { type: 'refusal', refusal: text }
    : { type: 'output_text', annotations: [], logprobs: [], text };
}

function messageItem(message: NonNullable<TurnPlan['message']>, status: string | undefined) {
  return {
    id: message.id,
    type: 'message',
    status: status ?? 'in_progress',
    content: status === undefined ? [] : [contentPart(message, message.pieces.join(''))],
    role: 'assistant',
  };
}

function functionCallItem(call: TurnPlan['calls'][number], status: string, args: string) {
  return {
    id: call.id,
    type: 'function_call',
    status,
    arguments: args,
    call_id: call.callId,
    name: call.name,
  };
}

/** Every output item as it stands once the turn is over (for `response.completed` and the JSON body). */
function finalOutput(plan: TurnPlan) {
  const itemStatus = plan.incomplete ? 'incomplete' : 'completed';
  return [
    ...(plan.reasoning ? [reasoningItem(plan.reasoning, true)] : []),
    ...(plan.message ? [messageItem(plan.message, itemStatus)] : []),
    ...plan.calls.map((call) => functionCallItem(call, 'completed', call.arguments)),
  ];
}

/** The `response` object: in progress (no output, no usage) or final. */
function responseObject(plan: TurnPlan, body: Record<string, unknown>, usage?: ScriptedUsage) {
  const final = usage !== undefined;
  const status = !final ? 'in_progress' : plan.incomplete ? 'incomplete' : 'completed';
  return {
    id: plan.responseId,
    object: 'response',
    created_at: plan.createdAt,
    status,
    background: false,
    error: null,
    incomplete_details: final && plan.incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: plan.model,
    output: final ? finalOutput(plan) : [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: {
      effort: (body.reasoning as { effort?: string } | undefined)?.effort ?? null,
      summary: (body.reasoning as { summary?: string } | undefined)?.summary ?? null,
    },
    service_tier: 'default',
    store: body.store ?? true,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    truncation: 'disabled',
    usage: final ? wireUsage(usage) : null,
    metadata: {},
  };
}

const openAIResponsesWire: WireFormat = {
  endpoint: '/v1/responses',

  wantsStream: (body) => body.stream === true,

  streamEvents(turn, body) {
    const plan = planTurn(turn, body);
    const events: SseEvent[] = [];
    let sequence = 0;
    const push = (type: string, data: Record<string, unknown>) =>
      events.push({ event: type, data: { type, sequence_number: sequence++, ...data } });
    let outputIndex = 0;

    push('response.created', { response: responseObject(plan, body) });
    push('response.in_progress', { response: responseObject(plan, body) });

    if (plan.reasoning) {
      const reasoning = plan.reasoning;
      const output_index = outputIndex++;
      const item_id = reasoning.id;
      push('response.output_item.added', { output_index, item: reasoningItem(reasoning, false) });
      if (reasoning.pieces.length > 0) {
        const text = reasoning.pieces.join('');
        const ids = { item_id, output_index, summary_index: 0 };
        push('response.reasoning_summary_part.added', { ...ids, part: { type: 'summary_text', text: '' } });
        for (const delta of reasoning.pieces)
          push('response.reasoning_summary_text.delta', { ...ids, delta });
        push('response.reasoning_summary_text.done', { ...ids, text });
        push('response.reasoning_summary_part.done', { ...ids, part: { type: 'summary_text', text } });
      }
      push('response.output_item.done', { output_index, item: reasoningItem(reasoning, true) });
    }

    if (plan.message) {
      const message = plan.message;
      const output_index = outputIndex++;
      const ids = { item_id: message.id, output_index, content_index: 0 };
      const text = message.pieces.join('');
      push('response.output_item.added', { output_index, item: messageItem(message, undefined) });
      push('response.content_part.added', { ...ids, part: contentPart(message, '') });
      for (const delta of message.pieces) {
        if (message.refusal) push('response.refusal.delta', { ...ids, delta });
        else push('response.output_text.delta', { ...ids, delta, logprobs: [] });
      }
      if (message.refusal) push('response.refusal.done', { ...ids, refusal: text });
      else push('response.output_text.done', { ...ids, text, logprobs: [] });
      push('response.content_part.done', { ...ids, part: contentPart(message, text) });
      push('response.output_item.done', {
        output_index,
        item: messageItem(message, plan.incomplete ? 'incomplete' : 'completed'),
      });
    }

    for (const call of plan.calls) {
      const output_index = outputIndex++;
      push('response.output_item.added', { output_index, item: functionCallItem(call, 'in_progress', '') });
      for (const delta of splitIntoPieces(call.arguments)) {
        push('response.function_call_arguments.delta', { item_id: call.id, output_index, delta });
      }
      push('response.function_call_arguments.done', {
        item_id: call.id,
        output_index,
        name: call.name,
        arguments: call.arguments,
      });
      push('response.output_item.done', {
        output_index,
        item: functionCallItem(call, 'completed', call.arguments),
      });
    }

    push(plan.incomplete ? 'response.incomplete' : 'response.completed', {
      response: responseObject(plan, body, turn.usage ?? { inputTokens: 0, outputTokens: 0 }),
    });
    return events;
  },

  jsonResponse(turn, body) {
    return responseObject(planTurn(turn, body), body, turn.usage ?? { inputTokens: 0, outputTokens: 0 });
  },

  errorBody(status, message) {
    const kind = ERROR_KINDS[status] ?? {
      type: status >= 500 ? 'server_error' : 'invalid_request_error',
      code: null,
    };
    return { error: { message, type: kind.type, param: null, code: kind.code } };
  },
};
