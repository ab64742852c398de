import { plainQuestion, reasoningQuestion, toolQuestion } from './calls.ts';
import { chunker, DONE, sse, streamed, type CorpusCase } from './corpus-case.ts';

/** Finish reasons and the usage shapes servers report. */

const OPENAI = chunker({
  id: 'chatcmpl-BqLC1a2b3c4d5e6f7g8h9i0j1k2l',
  created: 1_751_903_000,
  model: 'gpt-4.1-mini-2025-04-14',
  extra: { service_tier: 'default', system_fingerprint: 'fp_6f2eabb9a5', usage: null },
});

const openAIUsage = (usage: Record<string, unknown>) => OPENAI.noChoice({ usage });

/** `length`: the reply cut at max tokens. */
const length = sse([
  OPENAI.choice({ role: 'assistant', content: '', refusal: null }),
  OPENAI.choice({ content: 'Once upon ' }),
  OPENAI.choice({ content: 'a time' }),
  OPENAI.choice({}, 'length'),
  openAIUsage({ prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 }),
  DONE,
]);

const AZURE = chunker({
  id: 'chatcmpl-AzUrE0123456789abcdefghijk',
  created: 1_751_903_100,
  model: 'gpt-4o-2024-11-20',
  extra: { system_fingerprint: 'fp_ee1d74bde0' },
});

/** Azure: a first chunk with no choice (prompt filter results, empty id and model), then content_filter. */
const contentFilter =
  'data: {"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{"hate":{"filtered":false,"severity":"safe"},"self_harm":{"filtered":false,"severity":"safe"},"sexual":{"filtered":false,"severity":"safe"},"violence":{"filtered":false,"severity":"safe"}}}]}\n\n' +
  sse([
    AZURE.choice({ role: 'assistant', content: '' }, null, { content_filter_results: {} }),
    AZURE.choice({ content: 'The story continues with' }, null, {
      content_filter_results: { violence: { filtered: false, severity: 'low' } },
    }),
    AZURE.choice({}, 'content_filter', {
      content_filter_results: { violence: { filtered: true, severity: 'medium' } },
    }),
    AZURE.noChoice({ usage: { prompt_tokens: 40, completion_tokens: 6, total_tokens: 46 } }),
    DONE,
  ]);

const VLLM = chunker({
  id: 'chatcmpl-ab12cd34ef56',
  created: 1_751_903_200,
  model: 'mistralai/Mistral-7B-Instruct-v0.3',
});

/** A finish reason the SDK does not know (`abort`): passed through lowercased. */
const unknownFinish = sse([
  VLLM.choice({ role: 'assistant', content: 'Partial' }),
  VLLM.choice({ content: '' }, 'abort', { stop_reason: null }),
  DONE,
]);

/** Legacy `function_call` deltas (not read) and finish_reason `function_call`. */
const legacyFunctionCall = sse([
  OPENAI.choice({ role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '' } }),
  OPENAI.choice({ function_call: { arguments: '{"city":"Paris"}' } }),
  OPENAI.choice({}, 'function_call'),
  DONE,
]);

/** The finish reason on the chunk with the last content, then a chunk whose finish_reason is null again. */
const finishWithContent = sse([
  VLLM.choice({ role: 'assistant', content: 'All ' }),
  VLLM.choice({ content: 'done.' }, 'stop', { stop_reason: null }),
  VLLM.choice({ content: '' }, null),
  DONE,
]);

/** o-series usage: cached prompt tokens and reasoning tokens in the details. */
const usageDetails = sse([
  OPENAI.choice({ role: 'assistant', content: '', refusal: null }),
  OPENAI.choice({ content: 'Forty-two.' }),
  OPENAI.choice({}, 'stop'),
  openAIUsage({
    prompt_tokens: 2048,
    completion_tokens: 300,
    total_tokens: 2348,
    prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 256,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  }),
  DONE,
]);

const GROQ = chunker({
  id: 'chatcmpl-7e3b2a1c-groq',
  created: 1_751_903_300,
  model: 'llama-3.3-70b-versatile',
  extra: { system_fingerprint: 'fp_3f3b593e33' },
});

/** Groq: usage inside `x_groq` on the finish chunk (not read), no top-level usage anywhere. */
const groqUsage = sse([
  GROQ.choice({ role: 'assistant', content: '' }).replace(
    '"choices"',
    '"x_groq":{"id":"req_01jz"},"choices"',
  ),
  GROQ.choice({ content: 'Hi there.' }),
  GROQ.choice({}, 'stop').replace(
    '"choices"',
    '"x_groq":{"id":"req_01jz","usage":{"queue_time":0.05,"prompt_tokens":10,"prompt_time":0.002,"completion_tokens":3,"completion_time":0.01,"total_tokens":13,"total_time":0.012}},"choices"',
  ),
  DONE,
]);

/** Usage on the finish chunk itself, with null token fields and null details. */
const usageOnFinish = sse([
  VLLM.choice({ role: 'assistant', content: 'Ok.' }),
  VLLM.choice({ content: '' }, 'stop').replace(
    '"choices"',
    '"usage":{"prompt_tokens":7,"completion_tokens":null,"total_tokens":null,"prompt_tokens_details":null,"completion_tokens_details":{"reasoning_tokens":null}},"choices"',
  ),
  DONE,
]);

/** Continuous usage stats (vLLM): usage on every chunk, the last one counts. */
const continuousUsage = sse([
  VLLM.choice({ role: 'assistant', content: '' }).replace(
    '"choices"',
    '"usage":{"prompt_tokens":9,"completion_tokens":0,"total_tokens":9},"choices"',
  ),
  VLLM.choice({ content: 'One' }).replace(
    '"choices"',
    '"usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10},"choices"',
  ),
  VLLM.choice({ content: ' two' }).replace(
    '"choices"',
    '"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11},"choices"',
  ),
  VLLM.choice({ content: '' }, 'stop').replace(
    '"choices"',
    '"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11},"choices"',
  ),
  VLLM.noChoice({ usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 } }),
  DONE,
]);

/** Chunks with an empty `choices` between content chunks. */
const emptyChoices = sse([
  VLLM.choice({ role: 'assistant', content: 'Alpha' }),
  VLLM.noChoice({}),
  VLLM.choice({ content: ' beta' }),
  VLLM.noChoice({}),
  VLLM.choice({ content: '' }, 'stop'),
  DONE,
]);

export const FINISH_AND_USAGE_CASES: readonly CorpusCase[] = [
  {
    name: 'finish: length (cut at max tokens)',
    call: plainQuestion('Tell me a long story.'),
    reply: streamed(length),
  },
  {
    name: 'finish: content_filter (Azure, first chunk with empty choices and prompt_filter_results)',
    call: plainQuestion('Continue the story.'),
    reply: streamed(contentFilter, {
      headers: { 'content-type': 'text/event-stream', 'apim-request-id': 'a1b2' },
    }),
  },
  {
    name: 'finish: an unknown finish reason (abort) passes through',
    call: plainQuestion(),
    reply: streamed(unknownFinish, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'finish: legacy function_call deltas and finish_reason function_call',
    call: toolQuestion(),
    reply: streamed(legacyFunctionCall),
  },
  {
    name: 'finish: stop on the chunk with the last content, then a chunk with finish_reason null',
    call: plainQuestion(),
    reply: streamed(finishWithContent, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'usage: cached prompt tokens and reasoning tokens in the details (o-series)',
    call: reasoningQuestion(60),
    reply: streamed(usageDetails),
  },
  {
    name: 'usage: none at top level (Groq x_groq usage on the finish chunk)',
    call: plainQuestion(),
    reply: streamed(groqUsage, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'usage: on the finish chunk, with null token fields and null details',
    call: plainQuestion(),
    reply: streamed(usageOnFinish, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'usage: on every chunk (vLLM continuous usage stats), the last one counts',
    call: plainQuestion(),
    reply: streamed(continuousUsage, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'stream: chunks with empty choices between content chunks',
    call: plainQuestion(),
    reply: streamed(emptyChoices, { headers: { 'content-type': 'text/event-stream' } }),
  },
];
