import { plainQuestion, reasoningQuestion, toolQuestion } from './calls.ts';
import { chunker, DONE, offsetAfter, sse, streamed, type CorpusCase } from './corpus-case.ts';

/** Reasoning (`reasoning_content`, `reasoning`), its order against text, and refusals. */

const DEEPSEEK = chunker({
  id: '8d4c2b1a-0f9e-4d8c-b7a6-5e4d3c2b1a0f',
  created: 1_751_902_000,
  model: 'deepseek-reasoner',
  extra: { system_fingerprint: 'fp_5417b77867_prod0820_fp8_kvcache' },
});

/** DeepSeek: `reasoning_content` deltas (content null), then content (reasoning_content null). */
const reasoningContent = sse([
  DEEPSEEK.choice({ role: 'assistant', content: null, reasoning_content: '' }),
  DEEPSEEK.choice({ content: null, reasoning_content: 'Try small primes: ' }),
  DEEPSEEK.choice({ content: null, reasoning_content: '1001 / 7 = 143.' }),
  DEEPSEEK.choice({ content: '', reasoning_content: null }),
  DEEPSEEK.choice({ content: 'No, ', reasoning_content: null }),
  DEEPSEEK.choice({ content: '1001 = 7 × 143.', reasoning_content: null }),
  DEEPSEEK.choice({ content: '', reasoning_content: null }, 'stop'),
  DEEPSEEK.noChoice({
    usage: {
      prompt_tokens: 16,
      completion_tokens: 120,
      total_tokens: 136,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 98 },
      prompt_cache_hit_tokens: 0,
      prompt_cache_miss_tokens: 16,
    },
  }),
  DONE,
]);

const OPENROUTER = chunker({
  id: 'gen-1751902100-AbCdEfGhIjKlMnOp',
  created: 1_751_902_100,
  model: 'openai/gpt-oss-120b',
  extra: { provider: 'Groq' },
});

/** OpenRouter / gpt-oss: `reasoning` (with `reasoning_details`), its processing comments, native finish reason. */
const reasoningField =
  ': OPENROUTER PROCESSING\n\n' +
  sse([
    OPENROUTER.choice(
      {
        role: 'assistant',
        content: '',
        reasoning: 'The user asks ',
        reasoning_details: [{ type: 'reasoning.text', text: 'The user asks ', format: 'unknown', index: 0 }],
      },
      null,
      { native_finish_reason: null },
    ),
    OPENROUTER.choice(
      {
        role: 'assistant',
        content: '',
        reasoning: 'about 1001.',
        reasoning_details: [{ type: 'reasoning.text', text: 'about 1001.', format: 'unknown', index: 0 }],
      },
      null,
      { native_finish_reason: null },
    ),
    OPENROUTER.choice({ role: 'assistant', content: 'It is 7 · 11 · 13.', reasoning: null }, null, {
      native_finish_reason: null,
    }),
    OPENROUTER.choice({ role: 'assistant', content: '', reasoning: null }, 'stop', {
      native_finish_reason: 'stop',
    }),
    OPENROUTER.choice({ role: 'assistant', content: '' }, null, { native_finish_reason: null }).replace(
      '"choices"',
      '"usage":{"prompt_tokens":80,"completion_tokens":45,"total_tokens":125,"cost":0.0000349,"is_byok":false,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":30}},"choices"',
    ),
    DONE,
  ]);

const VLLM = chunker({ id: 'chatcmpl-aa11bb22cc33', created: 1_751_902_200, model: 'Qwen/QwQ-32B' });

/** Reasoning after text, then text again (servers that interleave). */
const reasoningAfterText = sse([
  VLLM.choice({ role: 'assistant', content: '' }),
  VLLM.choice({ content: 'Short answer: no.' }),
  VLLM.choice({ reasoning_content: 'Let me double-check: ' }),
  VLLM.choice({ reasoning_content: '7 × 143 = 1001.' }),
  VLLM.choice({ content: ' Confirmed.' }),
  VLLM.choice({ reasoning_content: 'Done.' }),
  VLLM.choice({ content: '' }, 'stop', { stop_reason: null }),
  VLLM.noChoice({ usage: { prompt_tokens: 30, total_tokens: 90, completion_tokens: 60 } }),
  DONE,
]);

/** Both reasoning fields in one delta (`reasoning_content` wins), and reasoning with content in one delta. */
const sharedDeltas = sse([
  VLLM.choice({ role: 'assistant', reasoning_content: 'A', reasoning: 'ignored' }),
  VLLM.choice({ reasoning_content: '', reasoning: 'B' }),
  VLLM.choice({ reasoning_content: 'C', content: 'D' }),
  VLLM.choice({ reasoning: 'E', content: 'F' }, 'stop'),
  DONE,
]);

/** Reasoning then a tool call (reasoning ends before the call). */
const reasoningThenCall = sse([
  DEEPSEEK.choice({ role: 'assistant', content: null, reasoning_content: 'I need the weather.' }),
  DEEPSEEK.choice({
    content: null,
    reasoning_content: null,
    tool_calls: [
      {
        index: 0,
        id: 'call_00_reasoned',
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      },
    ],
  }),
  DEEPSEEK.choice({
    content: null,
    reasoning_content: null,
    tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }],
  }),
  DEEPSEEK.choice({ content: '', reasoning_content: null }, 'tool_calls'),
  DEEPSEEK.noChoice({
    usage: {
      prompt_tokens: 60,
      completion_tokens: 30,
      total_tokens: 90,
      completion_tokens_details: { reasoning_tokens: 12 },
    },
  }),
  DONE,
]);

const OPENAI = chunker({
  id: 'chatcmpl-BqLB9r8e7f6u5s4a3l2Refusal',
  created: 1_751_902_300,
  model: 'gpt-4o-2024-08-06',
  extra: { service_tier: 'default', system_fingerprint: 'fp_a288987b44', usage: null },
});

/** OpenAI refusal: `refusal` deltas with content null, then finish_reason stop. */
const refusal = sse([
  OPENAI.choice({ role: 'assistant', content: null, refusal: '' }),
  OPENAI.choice({ refusal: "I'm sorry, " }),
  OPENAI.choice({ refusal: "I can't help with that." }),
  OPENAI.choice({}, 'stop'),
  OPENAI.noChoice({
    usage: {
      prompt_tokens: 25,
      completion_tokens: 9,
      total_tokens: 34,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
  }),
  DONE,
]);

/** Text, then a refusal in the same chunk as finish_reason; a non-string refusal is ignored. */
const refusalAfterText = sse([
  OPENAI.choice({ role: 'assistant', content: 'Here is part of it. ', refusal: false }),
  OPENAI.choice({ refusal: 'I cannot continue.' }, 'stop'),
  DONE,
]);

export const REASONING_CASES: readonly CorpusCase[] = [
  {
    name: 'reasoning: reasoning_content then content (DeepSeek), at level high, split inside a reasoning delta',
    call: reasoningQuestion(90),
    reply: streamed(reasoningContent, {
      headers: { 'content-type': 'text/event-stream; charset=utf-8' },
      splitAt: [offsetAfter(reasoningContent, '"reasoning_content":"Try sm')],
    }),
  },
  {
    name: 'reasoning: the "reasoning" field with reasoning_details and processing comments (OpenRouter, gpt-oss), usage on a chunk with a choice, at level medium',
    call: reasoningQuestion(50, { model: { provider: 'openrouter', vendorModelId: 'openai/gpt-oss-120b' } }),
    reply: streamed(reasoningField, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'reasoning: reasoning after text, then text and reasoning again, at level low',
    call: reasoningQuestion(20),
    reply: streamed(reasoningAfterText, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'reasoning: streamed with no reasoning level asked (no thought deltas, still in the response messages)',
    call: reasoningQuestion(null),
    reply: streamed(reasoningContent),
  },
  {
    name: 'reasoning: level 0 (reasoning_effort none) while the server still streams reasoning',
    call: reasoningQuestion(0),
    reply: streamed(reasoningAfterText, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'reasoning: reasoning_content and reasoning in one delta, reasoning and content in one delta',
    call: reasoningQuestion(70),
    reply: streamed(sharedDeltas, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'reasoning: reasoning then a tool call (DeepSeek), at level medium',
    call: toolQuestion({ reasoningLevel: 40 }),
    reply: streamed(reasoningThenCall),
  },
  {
    name: 'refusal: refusal deltas with content null and finish_reason stop (OpenAI)',
    call: plainQuestion('Help me pick a lock.'),
    reply: streamed(refusal),
  },
  {
    name: 'refusal: text, then a refusal in the finish chunk; a non-string refusal ignored',
    call: plainQuestion('Help me pick a lock.'),
    reply: streamed(refusalAfterText),
  },
];
