import { plainQuestion, reasoningQuestion } from './calls.ts';
import { chunker, DONE, offsetAfter, offsetInside, sse, streamed, type CorpusCase } from './corpus-case.ts';

/** Plain text replies, and the SSE framing variants real servers use. */

const OPENAI_4O_MINI = chunker({
  id: 'chatcmpl-BqL9x2F7nQ0vT3kR8sYw1ZpA4mUe',
  created: 1_751_900_000,
  model: 'gpt-4o-mini-2024-07-18',
  extra: { service_tier: 'default', system_fingerprint: 'fp_34a54ae93c', usage: null },
});

const openAIText = sse([
  OPENAI_4O_MINI.choice({ role: 'assistant', content: '', refusal: null }),
  OPENAI_4O_MINI.choice({ content: 'Hello' }),
  OPENAI_4O_MINI.choice({ content: '!' }),
  OPENAI_4O_MINI.choice({ content: ' How can I help' }),
  OPENAI_4O_MINI.choice({ content: ' you today?' }),
  OPENAI_4O_MINI.choice({}, 'stop'),
  OPENAI_4O_MINI.noChoice({
    usage: {
      prompt_tokens: 19,
      completion_tokens: 10,
      total_tokens: 29,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
  }),
  DONE,
]);

const VLLM_QWEN = chunker({
  id: 'chatcmpl-4b1e0f3a9c2d47e8',
  created: 1_751_900_100,
  model: 'Qwen/Qwen3-8B',
});

const multiByte = sse(
  [
    VLLM_QWEN.choice({ role: 'assistant', content: '' }),
    VLLM_QWEN.choice({ content: 'Grüße aus Köln ' }),
    VLLM_QWEN.choice({ content: '— 東京は' }),
    VLLM_QWEN.choice({ content: '晴れ 🌤️' }),
    VLLM_QWEN.choice({ content: ' ¡Olé! 👍🏽' }),
    VLLM_QWEN.choice({ content: '' }, 'stop', { stop_reason: null }),
    VLLM_QWEN.noChoice({ usage: { prompt_tokens: 12, total_tokens: 40, completion_tokens: 28 } }),
    DONE,
  ],
  { eol: '\r\n' },
);

const LLAMA_CPP = chunker({
  id: 'chatcmpl-Xr3kVQ0l',
  created: 1_751_900_200,
  model: 'llama-3.1-8b-instruct',
});

/** Comments before and between events, `data:` with no space, CRLF, and fields the client ignores. */
const framing =
  ': keep-alive\r\n\r\n' +
  `retry: 3000\r\nid: 1\r\nevent: message\r\ndata:${LLAMA_CPP.choice({ role: 'assistant', content: 'Fine' })}\r\n\r\n` +
  ': keep-alive\r\n\r\n' +
  `id: 2\r\ndata:${LLAMA_CPP.choice({ content: ', thanks' })}\r\n\r\n` +
  ': ping - 2025-07-07 12:00:00.000000\r\n\r\n' +
  `data:${LLAMA_CPP.choice({ content: '.' })}\r\n\r\n` +
  `data:${LLAMA_CPP.choice({}, 'stop')}\r\n\r\n` +
  `data:${LLAMA_CPP.noChoice({ usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 } })}\r\n\r\n` +
  'data:[DONE]\r\n\r\n';

const bareCr = sse(
  [
    LLAMA_CPP.choice({ role: 'assistant', content: 'Old' }),
    LLAMA_CPP.choice({ content: ' Mac' }),
    LLAMA_CPP.choice({ content: ' line ends.' }, 'stop'),
    DONE,
  ],
  { eol: '\r' },
);

/** JSON escapes a parser must decode: \n, \", \\, \/, \u00e9, a surrogate pair and \t. */
const escapes =
  'data: {"id":"chatcmpl-esc","object":"chat.completion.chunk","created":1751900300,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"role":"assistant","content":"Line one\\nLine \\"two\\"\\t"},"logprobs":null,"finish_reason":null}]}\n\n' +
  'data: {"id":"chatcmpl-esc","object":"chat.completion.chunk","created":1751900300,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"content":" caf\\u00e9 \\ud83d\\ude00 C:\\\\tmp a\\/b"},"logprobs":null,"finish_reason":null}]}\n\n' +
  'data: {"id":"chatcmpl-esc","object":"chat.completion.chunk","created":1751900300,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}\n\n' +
  'data: [DONE]\n\n';

const MISTRAL = chunker({ id: 'c8f1d0a2b7e94f3c', created: 1_751_900_400, model: 'magistral-medium-2509' });

/** Mistral's content arrays: thinking parts (reasoning) and text parts. */
const contentArrays = sse([
  MISTRAL.choice({ role: 'assistant', content: '' }),
  MISTRAL.choice({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'Divide by 7: ' }] }] }),
  MISTRAL.choice({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: '7 × 143.' }] }] }),
  MISTRAL.choice({ content: [{ type: 'text', text: 'No: ' }] }),
  MISTRAL.choice({
    content: [
      { type: 'text', text: '' },
      { type: 'image_url', image_url: 'x' },
    ],
  }),
  MISTRAL.choice({ content: '1001 = 7 × 11 × 13.' }),
  MISTRAL.choice({ content: '' }, 'stop'),
  MISTRAL.noChoice({ usage: { prompt_tokens: 20, total_tokens: 61, completion_tokens: 41 } }),
  DONE,
]);

const OLLAMA = chunker({
  id: 'chatcmpl-512',
  created: 1_751_900_500,
  model: 'llama3.2',
  extra: { system_fingerprint: 'fp_ollama' },
});

/** One event whose JSON is spread over two `data:` lines (joined with a newline, per the SSE spec). */
const twoDataLines =
  `data: ${OLLAMA.choice({ role: 'assistant', content: 'Split' })}\n\n` +
  `data: {"id":"chatcmpl-512","object":"chat.completion.chunk",\ndata: "created":1751900500,"model":"llama3.2","choices":[{"index":0,"delta":{"content":" event"},"finish_reason":null}]}\n\n` +
  `data: ${OLLAMA.choice({ content: '' }, 'stop')}\n\n` +
  'data: [DONE]\n\n';

/** A server that keeps writing after `[DONE]`: the SDK ignores only the `[DONE]` event itself. */
const afterDone = sse([
  OLLAMA.choice({ role: 'assistant', content: 'Done early' }),
  OLLAMA.choice({ content: '' }, 'stop'),
  DONE,
  OLLAMA.noChoice({ usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } }),
]);

export const TEXT_CASES: readonly CorpusCase[] = [
  {
    name: 'text: OpenAI stream (role chunk with empty content and refusal null, usage null on each chunk, usage-only final chunk, [DONE]) split mid-line and mid-JSON',
    call: plainQuestion(),
    reply: streamed(openAIText, {
      splitAt: [
        offsetAfter(openAIText, 'dat'),
        offsetAfter(openAIText, '"content":"Hel'),
        offsetAfter(openAIText, '"finish_reason":"st'),
        offsetAfter(openAIText, '"prompt_tokens'),
        offsetAfter(openAIText, '[DO'),
      ],
    }),
  },
  {
    name: 'text: multi-byte UTF-8 (umlauts, CJK, emoji with variation selector and skin tone) with CRLF line ends, writes split inside characters and between CR and LF',
    call: plainQuestion('Greet me in three languages.'),
    reply: streamed(multiByte, {
      headers: { 'content-type': 'text/event-stream' },
      splitAt: [
        offsetInside(multiByte, 'ü'),
        offsetAfter(multiByte, '\r'),
        offsetInside(multiByte, '東', 2),
        offsetInside(multiByte, '🌤', 3),
        offsetAfter(multiByte, '\r\n', 3),
        offsetInside(multiByte, '👍🏽', 5),
      ].sort((a, b) => a - b),
    }),
  },
  {
    name: 'text: keep-alive and ping comments, "data:" without a space, CRLF, retry/id/event fields',
    call: plainQuestion('How are you?'),
    reply: streamed(framing, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'text: a UTF-8 byte order mark before the first event',
    call: plainQuestion(),
    reply: streamed(`\uFEFF${bareCr.replaceAll('\r', '\n')}`, {
      headers: { 'content-type': 'text/event-stream' },
    }),
  },
  {
    name: 'text: bare CR line ends',
    call: plainQuestion(),
    reply: streamed(bareCr, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'text: JSON escapes in content (\\n, \\", \\t, \\\\, \\/, \\u00e9, an escaped surrogate pair), split inside the escapes',
    call: plainQuestion(),
    reply: streamed(escapes, {
      splitAt: [
        offsetAfter(escapes, 'Line one\\'),
        offsetAfter(escapes, '\\u00'),
        offsetAfter(escapes, '\\ud83d'),
      ],
    }),
  },
  {
    name: 'text: content as arrays of thinking and text parts (Mistral), unknown part types ignored, at reasoning level 100',
    call: reasoningQuestion(100),
    reply: streamed(contentArrays, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'text: one event spread over two data lines (Ollama chunk shape, no logprobs)',
    call: plainQuestion(),
    reply: streamed(twoDataLines, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'text: a usage chunk after [DONE] is still read',
    call: plainQuestion(),
    reply: streamed(afterDone, { headers: { 'content-type': 'text/event-stream' } }),
  },
];
