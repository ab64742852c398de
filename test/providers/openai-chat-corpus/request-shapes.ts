import { priorConversation, TIME_TOOL, WEATHER_TOOL } from './calls.ts';
import { chunker, DONE, sse, streamed, type CorpusCase } from './corpus-case.ts';

/** Calls whose point is the request on the wire: messages of every kind, formats, choices, levels. */

const OPENAI = chunker({
  id: 'chatcmpl-BqLE3f4g5h6i7j8k9l0m1n2o3p4q',
  created: 1_751_905_000,
  model: 'gpt-4o-2024-08-06',
  extra: { service_tier: 'default', system_fingerprint: 'fp_07871e2ad8', usage: null },
});

const reply = (text: string) =>
  streamed(
    sse([
      OPENAI.choice({ role: 'assistant', content: '', refusal: null }),
      OPENAI.choice({ content: text }),
      OPENAI.choice({}, 'stop'),
      OPENAI.noChoice({ usage: { prompt_tokens: 1200, completion_tokens: 12, total_tokens: 1212 } }),
      DONE,
    ]),
  );

export const REQUEST_SHAPE_CASES: readonly CorpusCase[] = [
  {
    name: 'request: a conversation with images (URL, base64, bytes), a PDF, reasoning, text and tool calls, tool results (text, error, JSON error, a file moved to a user message)',
    call: {
      instructions: 'You are a travel assistant.\n\nAnswer in English.',
      messages: priorConversation(),
      tools: [WEATHER_TOOL, TIME_TOOL],
      toolChoice: 'auto',
      reasoningLevel: 60,
    },
    reply: reply('The report says…'),
  },
  {
    name: 'request: a JSON-schema response format',
    call: {
      instructions: 'Reply in JSON.',
      messages: [{ role: 'user', content: 'Weather in Paris as JSON.' }],
      responseFormat: {
        name: 'weather_report',
        schema: {
          type: 'object',
          properties: { city: { type: 'string' }, tempC: { type: 'number' } },
          required: ['city', 'tempC'],
          additionalProperties: false,
        },
      },
      reasoningLevel: null,
    },
    reply: reply('{"city":"Paris","tempC":21}'),
  },
  {
    name: 'request: tools with tool choice none, response format and a reasoning level together',
    call: {
      instructions: 'Answer from what you know.',
      messages: [{ role: 'user', content: 'Typical July weather in Paris?' }],
      tools: [WEATHER_TOOL],
      toolChoice: 'none',
      responseFormat: {
        name: 'answer',
        schema: { type: 'object', properties: { text: { type: 'string' } } },
      },
      reasoningLevel: 30,
    },
    reply: reply('{"text":"Warm."}'),
  },
  {
    name: 'request: tools without a tool choice',
    call: {
      instructions: 'Use tools.',
      messages: [{ role: 'user', content: 'Time in Tokyo?' }],
      tools: [TIME_TOOL],
      reasoningLevel: null,
    },
    reply: reply('Let me check.'),
  },
  {
    name: 'request: no API key (no Authorization header), empty instructions, a base URL with a trailing slash',
    call: {
      model: { apiKey: null, baseUrlSuffix: '/', provider: 'local-llm', vendorModelId: 'Qwen/Qwen3-8B' },
      instructions: '',
      messages: [{ role: 'user', content: 'hi' }],
      reasoningLevel: null,
    },
    reply: reply('hello'),
  },
  {
    name: 'request: an empty API key',
    call: {
      model: { apiKey: '' },
      instructions: 'x',
      messages: [{ role: 'user', content: 'hi' }],
      reasoningLevel: null,
    },
    reply: reply('hello'),
  },
  {
    name: 'request: an earlier assistant turn of text parts only, and user content as parts of text only',
    call: {
      instructions: 'Be brief.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'first question' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'first ' },
            { type: 'text', text: 'answer' },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'second ' },
            { type: 'text', text: 'question' },
          ],
        },
      ],
      reasoningLevel: 100,
    },
    reply: reply('second answer'),
  },
];
