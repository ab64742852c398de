import { plainQuestion, toolQuestion } from './calls.ts';
import { chunker, DONE, offsetAfter, sse, streamed, type CorpusCase } from './corpus-case.ts';

/** Streams that end badly: no [DONE], no finish reason, error objects, bad JSON, dropped connections. */

const OPENAI = chunker({
  id: 'chatcmpl-BqLD2e3f4g5h6i7j8k9l0m1n2o3p',
  created: 1_751_904_000,
  model: 'gpt-4o-mini-2024-07-18',
  extra: { service_tier: 'default', system_fingerprint: 'fp_34a54ae93c', usage: null },
});

const usage = OPENAI.noChoice({ usage: { prompt_tokens: 14, completion_tokens: 5, total_tokens: 19 } });

/** Finish reason and usage, then the body ends without `[DONE]`. */
const noDone = sse([
  OPENAI.choice({ role: 'assistant', content: '', refusal: null }),
  OPENAI.choice({ content: 'No done marker.' }),
  OPENAI.choice({}, 'stop'),
  usage,
]);

/** Text, `[DONE]`, and never a finish reason. */
const noFinishReason = sse([
  OPENAI.choice({ role: 'assistant', content: '', refusal: null }),
  OPENAI.choice({ content: 'Cut ' }),
  OPENAI.choice({ content: 'short' }),
  usage,
  DONE,
]);

/** Tool call deltas, then the body ends with no finish reason and no `[DONE]`. */
const callWithoutFinish = sse([
  OPENAI.choice({
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        index: 0,
        id: 'call_unfinished_0000000001',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":' },
      },
    ],
  }),
  OPENAI.choice({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
]);

/** OpenAI's error object after some text; the stream goes on (text and a finish after it). */
const midStreamError = sse([
  OPENAI.choice({ role: 'assistant', content: '', refusal: null }),
  OPENAI.choice({ content: 'Partial ' }),
  OPENAI.choice({ content: 'answer' }),
  '{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}',
  OPENAI.choice({ content: ' after the error' }),
  OPENAI.choice({}, 'stop'),
  DONE,
]);

const OPENROUTER = chunker({
  id: 'gen-1751904100-QrStUvWxYz012345',
  created: 1_751_904_100,
  model: 'anthropic/claude-sonnet-4',
  extra: { provider: 'Anthropic' },
});

/** OpenRouter: an `event: error`-less chunk carrying both `error` (numeric code) and a choice with finish_reason error. */
const openRouterError =
  ': OPENROUTER PROCESSING\n\n' +
  sse([
    OPENROUTER.choice({ role: 'assistant', content: 'Working on it' }, null, { native_finish_reason: null }),
    OPENROUTER.choice({ content: '' }, 'error', { native_finish_reason: 'error' }).replace(
      '"choices"',
      '"error":{"code":502,"message":"Provider returned error","metadata":{"provider_name":"Anthropic","raw":"overloaded"}},"choices"',
    ),
    DONE,
  ]);

const VLLM = chunker({
  id: 'chatcmpl-ee55ff66aa77',
  created: 1_751_904_200,
  model: 'Qwen/Qwen2.5-72B-Instruct',
});

/** vLLM's error object (object: error, numeric code) as an `event: error`, first in the stream. */
const vllmError =
  'event: error\n' +
  'data: {"error":{"object":"error","message":"This model\'s maximum context length is 32768 tokens. However, you requested 33000 tokens in the messages.","type":"BadRequestError","param":null,"code":400}}\n\n' +
  'data: [DONE]\n\n';

/** A server error object whose message is only "Overloaded" (no type, no code). */
const overloadedMessage = sse([
  VLLM.choice({ role: 'assistant', content: '' }),
  '{"error":{"message":"Overloaded"}}',
  DONE,
]);

/** A line that is not JSON between valid chunks. */
const malformedLine =
  sse([
    OPENAI.choice({ role: 'assistant', content: '', refusal: null }),
    OPENAI.choice({ content: 'Before' }),
  ]) +
  'data: {"id":"chatcmpl-BqLD2e3f4g5h6i7j8k9l0m1n2o3p","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" lost\n\n' +
  sse([OPENAI.choice({ content: ' after' }), OPENAI.choice({}, 'stop'), usage, DONE]);

/** JSON that is not a chunk (`choices` null), between valid chunks. */
const notAChunk =
  sse([OPENAI.choice({ role: 'assistant', content: 'Before' })]) +
  'data: {"id":"chatcmpl-x","object":"chat.completion.chunk","choices":null}\n\n' +
  sse([OPENAI.choice({ content: ' after' }), OPENAI.choice({}, 'stop'), DONE]);

/** An empty data line (an event with empty data). */
const emptyData = sse([
  OPENAI.choice({ role: 'assistant', content: 'Empty' }),
  '',
  OPENAI.choice({ content: ' data' }, 'stop'),
  DONE,
]);

/** Text, then the connection is cut mid-event (no terminating chunk). */
const droppedAfterText = sse([
  OPENAI.choice({ role: 'assistant', content: '', refusal: null }),
  OPENAI.choice({ content: 'The first ' }),
  OPENAI.choice({ content: 'half of' }),
  OPENAI.choice({ content: ' the answer' }),
]);

/** A tool call's first argument deltas, then the connection is cut. */
const droppedInCall = sse([
  OPENAI.choice({
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        index: 0,
        id: 'call_dropped_000000000001',
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      },
    ],
  }),
  OPENAI.choice({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Pa' } }] }),
]);

/** The finish chunk arrives, then the connection is cut before usage and `[DONE]`. */
const droppedAfterFinish = sse([
  OPENAI.choice({ role: 'assistant', content: 'Complete text.', refusal: null }),
  OPENAI.choice({}, 'stop'),
  usage,
]);

/** A proxy answering 200 with a JSON error instead of an event stream. */
const jsonInsteadOfStream = JSON.stringify({
  error: { message: 'Upstream request failed', type: 'upstream_error', code: 'bad_gateway' },
});

export const STREAM_FAULT_CASES: readonly CorpusCase[] = [
  {
    name: 'stream: [DONE] missing after the finish chunk and usage',
    call: plainQuestion(),
    reply: streamed(noDone),
  },
  {
    name: 'stream: ends without any finish_reason (text, usage, [DONE])',
    call: plainQuestion(),
    reply: streamed(noFinishReason),
  },
  {
    name: 'stream: tool call deltas, then the body ends with no finish_reason and no [DONE]',
    call: toolQuestion(),
    reply: streamed(callWithoutFinish),
  },
  {
    name: 'error: an error object mid-stream after text (OpenAI server_error), text after it',
    call: plainQuestion(),
    reply: streamed(midStreamError, { splitAt: [offsetAfter(midStreamError, '{"error":{"mess')] }),
  },
  {
    name: 'error: a chunk with both an error (numeric code 502) and a choice with finish_reason error (OpenRouter)',
    call: plainQuestion(),
    reply: streamed(openRouterError, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'error: an event: error with a context-length error object first in the stream (vLLM)',
    call: plainQuestion(),
    reply: streamed(vllmError, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'error: an error object with only the message "Overloaded"',
    call: plainQuestion(),
    reply: streamed(overloadedMessage, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'error: a malformed JSON line between valid chunks',
    call: plainQuestion(),
    reply: streamed(malformedLine),
  },
  {
    name: 'error: valid JSON that is not a chunk (choices null)',
    call: plainQuestion(),
    reply: streamed(notAChunk),
  },
  {
    name: 'error: an event with empty data',
    call: plainQuestion(),
    reply: streamed(emptyData),
  },
  {
    name: 'dropped: the connection is cut after some text, mid-event',
    call: plainQuestion(),
    reply: streamed(droppedAfterText, {
      dropAfterBytes: offsetAfter(droppedAfterText, '"content":" the ans'),
      writeIntervalMs: 2,
      splitAt: [offsetAfter(droppedAfterText, 'half of')],
    }),
  },
  {
    name: 'dropped: the connection is cut inside a tool call',
    call: toolQuestion(),
    reply: streamed(droppedInCall, { dropAfterBytes: Buffer.byteLength(droppedInCall) }),
  },
  {
    name: 'dropped: the connection is cut after the finish chunk, before usage and [DONE]',
    call: plainQuestion(),
    reply: streamed(droppedAfterFinish, { dropAfterBytes: offsetAfter(droppedAfterFinish, '"stop"}]}\n\n') }),
  },
  {
    name: 'stream: a 200 with a JSON error body instead of an event stream',
    call: plainQuestion(),
    reply: {
      type: 'raw',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: jsonInsteadOfStream,
    },
  },
  {
    name: 'stream: a 200 with an empty body',
    call: plainQuestion(),
    reply: { type: 'raw', status: 200, headers: { 'content-type': 'text/event-stream' }, body: '' },
  },
];
