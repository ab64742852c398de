import type { ModelMessage } from 'ai';
import type { ModelToolDefinition } from '../../../src/engine/ports.ts';
import type { CorpusCall } from './corpus-case.ts';

/** The calls the corpus sends, as the engine builds them (instructions, messages, tools). */

export const WEATHER_TOOL: ModelToolDefinition = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
    required: ['city'],
    additionalProperties: false,
  },
};

export const TIME_TOOL: ModelToolDefinition = {
  name: 'get_time',
  description: 'Local time in a time zone.',
  inputSchema: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] },
};

/** A tool without parameters: models often send `""` as its arguments. */
export const NOW_TOOL: ModelToolDefinition = {
  name: 'now',
  description: 'The current UTC time.',
  inputSchema: { type: 'object', properties: {} },
};

/** One user question, no tools, no reasoning level. */
export const plainQuestion = (content = 'Say hello.'): CorpusCall => ({
  instructions: 'You are terse.',
  messages: [{ role: 'user', content }],
  reasoningLevel: null,
});

/** A question the weather tools answer, tool choice auto. */
export const toolQuestion = (overrides: Partial<CorpusCall> = {}): CorpusCall => ({
  instructions: 'Use the tools when they help.',
  messages: [{ role: 'user', content: 'Weather and local time in Paris and Tokyo?' }],
  tools: [WEATHER_TOOL, TIME_TOOL],
  toolChoice: 'auto',
  reasoningLevel: null,
  ...overrides,
});

/** A question at a reasoning level. */
export const reasoningQuestion = (reasoningLevel: number | null, overrides: Partial<CorpusCall> = {}) => ({
  instructions: 'Think before answering.',
  messages: [{ role: 'user', content: 'Is 1,001 prime?' }] satisfies ModelMessage[],
  reasoningLevel,
  ...overrides,
});

/** A one-pixel PNG. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/**
 * A conversation with every kind of message the engine sends back: an earlier user turn with an
 * image (URL and inline bytes), an assistant turn with reasoning, text and two tool calls, their
 * results (text, an error, JSON, and text with a file that moves to a user message), another
 * assistant turn, then the new user question with an image and a PDF.
 */
export function priorConversation(): ModelMessage[] {
  return [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in these pictures, and what is the weather there?' },
        { type: 'file', data: new URL('https://images.example.com/paris.jpg'), mediaType: 'image/jpeg' },
        { type: 'file', data: PNG_BASE64, mediaType: 'image/png', filename: 'dot.png' },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'The first picture shows the Eiffel Tower.' },
        { type: 'text', text: 'Paris, and a dot. Checking the weather.' },
        { type: 'tool-call', toolCallId: 'call_w1', toolName: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool-call', toolCallId: 'call_t1', toolName: 'get_time', input: { tz: 'Europe/Paris' } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_w1',
          toolName: 'get_weather',
          output: { type: 'text', value: '21°C, sunny' },
        },
        {
          type: 'tool-result',
          toolCallId: 'call_t1',
          toolName: 'get_time',
          output: { type: 'error-text', value: 'time service unavailable' },
        },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'call_w2', toolName: 'get_weather', input: { city: 'Lyon' } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_w2',
          toolName: 'get_weather',
          output: {
            type: 'content',
            value: [
              { type: 'text', text: 'Radar image attached.' },
              {
                type: 'file',
                data: { type: 'data', data: PNG_BASE64 },
                mediaType: 'image/png',
                filename: 'radar.png',
              },
            ],
          },
        },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'call_j1', toolName: 'get_weather', input: { city: 'Nice' } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_j1',
          toolName: 'get_weather',
          output: {
            type: 'error-json',
            value: { error: 'tool_output_invalid', violations: [{ path: '/', message: 'must be JSON' }] },
          },
        },
      ],
    },
    { role: 'assistant', content: 'Paris: 21°C and sunny; Lyon: see the radar.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Thanks. Now summarise this report and this chart.' },
        {
          type: 'file',
          data: Buffer.from('%PDF-1.4 tiny'),
          mediaType: 'application/pdf',
          filename: 'report.pdf',
        },
        { type: 'file', data: new Uint8Array(Buffer.from(PNG_BASE64, 'base64')), mediaType: 'image/png' },
      ],
    },
  ];
}
