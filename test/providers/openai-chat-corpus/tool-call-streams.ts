import { toolQuestion, WEATHER_TOOL } from './calls.ts';
import { chunker, DONE, offsetAfter, sse, streamed, type CorpusCase } from './corpus-case.ts';

/** Tool calls: arguments in fragments, parallel and interleaved calls, missing ids and names. */

export const OPENAI_4O = chunker({
  id: 'chatcmpl-BqLA0c1dE2fG3hI4jK5lM6nO7pQr',
  created: 1_751_901_000,
  model: 'gpt-4o-2024-08-06',
  extra: { service_tier: 'default', system_fingerprint: 'fp_07871e2ad8', usage: null },
});

export const usage = (prompt: number, completion: number) =>
  OPENAI_4O.noChoice({
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
  });

export const argument = (index: number, text: string) => ({
  tool_calls: [{ index, function: { arguments: text } }],
});
export const start = (index: number, id: string, name: string) => ({
  tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }],
});

/** OpenAI: id and name on the first delta only, arguments a few characters per chunk. */
const oneCall = sse([
  OPENAI_4O.choice({
    role: 'assistant',
    content: null,
    ...start(0, 'call_kX2mP9qR4sT7vW1yZ3bC5dF8', 'get_weather'),
    refusal: null,
  }),
  ...['{"', 'city', '":"', 'Par', 'is', '","', 'unit', '":"', 'c', '"}'].map((piece) =>
    OPENAI_4O.choice(argument(0, piece)),
  ),
  OPENAI_4O.choice({}, 'tool_calls'),
  usage(83, 18),
  DONE,
]);

/** OpenAI parallel tool calls: text first, then call 0 in full, then call 1. */
const parallelCalls = sse([
  OPENAI_4O.choice({ role: 'assistant', content: '', refusal: null }),
  OPENAI_4O.choice({ content: 'Checking both.' }),
  OPENAI_4O.choice(start(0, 'call_A1b2C3d4E5f6G7h8I9j0K1l2', 'get_weather')),
  ...['{"ci', 'ty": "Pa', 'ris"}'].map((piece) => OPENAI_4O.choice(argument(0, piece))),
  OPENAI_4O.choice(start(1, 'call_M3n4O5p6Q7r8S9t0U1v2W3x4', 'get_time')),
  ...['{"tz', '": "Asia/', 'Tokyo"}'].map((piece) => OPENAI_4O.choice(argument(1, piece))),
  OPENAI_4O.choice({}, 'tool_calls'),
  usage(120, 52),
  DONE,
]);

const VLLM = chunker({
  id: 'chatcmpl-9a8b7c6d5e4f',
  created: 1_751_901_100,
  model: 'meta-llama/Llama-3.3-70B-Instruct',
});

/** Two calls whose deltas alternate by index; vLLM's name-only first delta (no arguments key). */
const interleaved = sse([
  VLLM.choice({ role: 'assistant', content: '' }),
  VLLM.choice({
    tool_calls: [{ id: 'chatcmpl-tool-1f2e', type: 'function', index: 0, function: { name: 'get_weather' } }],
  }),
  VLLM.choice({
    tool_calls: [{ id: 'chatcmpl-tool-3d4c', type: 'function', index: 1, function: { name: 'get_weather' } }],
  }),
  VLLM.choice(argument(0, '{"city": "')),
  VLLM.choice(argument(1, '{"city": "')),
  VLLM.choice(argument(1, 'Tokyo", "unit": "f"}')),
  VLLM.choice(argument(0, 'Paris"}')),
  VLLM.choice({ content: '' }, 'tool_calls', { stop_reason: 128008 }),
  VLLM.noChoice({ usage: { prompt_tokens: 310, total_tokens: 350, completion_tokens: 40 } }),
  DONE,
]);

const SGLANG = chunker({ id: '5c1d2e3f4a5b6c7d', created: 1_751_901_200, model: 'deepseek-ai/DeepSeek-V3' });

/** The id and arguments come first; the name arrives two deltas later (buffered by index). */
const lateName = sse([
  SGLANG.choice({ role: 'assistant', content: null }),
  SGLANG.choice({
    tool_calls: [
      { index: 0, id: 'call_late_name_01', type: 'function', function: { arguments: '{"city":' } },
    ],
  }),
  SGLANG.choice({ tool_calls: [{ index: 0, function: { arguments: ' "Oslo"' } }] }),
  SGLANG.choice({ tool_calls: [{ index: 0, function: { name: 'get_weather', arguments: '}' } }] }),
  SGLANG.choice({}, 'tool_calls'),
  SGLANG.noChoice({ usage: { prompt_tokens: 50, completion_tokens: 12, total_tokens: 62 } }),
  DONE,
]);

/** Arguments for an index whose name never arrives. */
const nameNever = sse([
  SGLANG.choice({ role: 'assistant', content: 'Calling.' }),
  SGLANG.choice({
    tool_calls: [
      { index: 0, id: 'call_nameless_01', type: 'function', function: { arguments: '{"city":"Oslo"}' } },
    ],
  }),
  SGLANG.choice({}, 'tool_calls'),
  DONE,
]);

/** Calls without an id: the client makes one up (one per call, used in the tool calls and the message). */
const noIds = sse([
  SGLANG.choice({ role: 'assistant', content: null }),
  SGLANG.choice({
    tool_calls: [
      { index: 0, type: 'function', function: { name: 'get_weather', arguments: '{"city": "Rome"}' } },
    ],
  }),
  SGLANG.choice({
    tool_calls: [{ index: 1, id: '', type: 'function', function: { name: 'get_time', arguments: '' } }],
  }),
  SGLANG.choice({ tool_calls: [{ index: 1, function: { arguments: '{"tz": "Europe/Rome"}' } }] }),
  SGLANG.choice({}, 'tool_calls'),
  DONE,
]);

export const TOOL_CALL_CASES: readonly CorpusCase[] = [
  {
    name: 'tools: one call, arguments in ten fragments, id and name only on the first delta (OpenAI), split inside the arguments JSON',
    call: toolQuestion(),
    reply: streamed(oneCall, {
      splitAt: [offsetAfter(oneCall, '"arguments":"Par'), offsetAfter(oneCall, '\\"')],
    }),
  },
  {
    name: 'tools: text then two parallel calls one after the other (OpenAI parallel_tool_calls)',
    call: toolQuestion(),
    reply: streamed(parallelCalls),
  },
  {
    name: 'tools: two calls with interleaved argument deltas by index, name-only first deltas (vLLM)',
    call: toolQuestion({ tools: [WEATHER_TOOL] }),
    reply: streamed(interleaved, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'tools: the name arrives in a later delta than the id and the first arguments',
    call: toolQuestion(),
    reply: streamed(lateName, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'tools: a call whose name never arrives',
    call: toolQuestion(),
    reply: streamed(nameNever, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'tools: calls without an id and with an empty id (ids made up by the client)',
    call: toolQuestion(),
    reply: streamed(noIds, { headers: { 'content-type': 'text/event-stream' } }),
  },
];
