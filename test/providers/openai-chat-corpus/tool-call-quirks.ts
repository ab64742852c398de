import { NOW_TOOL, toolQuestion } from './calls.ts';
import { chunker, DONE, sse, streamed, type CorpusCase } from './corpus-case.ts';
import { argument, OPENAI_4O, start, usage } from './tool-call-streams.ts';

/** Tool calls as some servers send them: odd arguments and finish reasons, no index, ignored choices. */

/** Arguments that are not JSON: the call comes back with its raw text as input. */
const invalidArguments = sse([
  OPENAI_4O.choice({
    role: 'assistant',
    content: null,
    ...start(0, 'call_bad_json_000000000001', 'get_weather'),
    refusal: null,
  }),
  OPENAI_4O.choice(argument(0, '{"city": Paris, ')),
  OPENAI_4O.choice(argument(0, "'unit': 'c'")),
  OPENAI_4O.choice({}, 'tool_calls'),
  usage(80, 9),
  DONE,
]);

/** A tool without parameters called with `""` as arguments (input `{}`), and one with `"{}"`. */
const emptyArguments = sse([
  OPENAI_4O.choice({
    role: 'assistant',
    content: null,
    ...start(0, 'call_now_empty_args_00001', 'now'),
    refusal: null,
  }),
  OPENAI_4O.choice(start(1, 'call_now_braces_000000002', 'now')),
  OPENAI_4O.choice(argument(1, '{}')),
  OPENAI_4O.choice({}, 'tool_calls'),
  usage(40, 7),
  DONE,
]);

const OLLAMA = chunker({
  id: 'chatcmpl-77',
  created: 1_751_901_300,
  model: 'qwen2.5:7b',
  extra: { system_fingerprint: 'fp_ollama' },
});

/** Ollama: the whole call in one delta, and `stop` (not `tool_calls`) as the finish reason. */
const wholeCallStop = sse([
  OLLAMA.choice({
    role: 'assistant',
    content: '',
    tool_calls: [
      {
        id: 'call_x1y2z3w4',
        index: 0,
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Berlin"}' },
      },
    ],
  }),
  OLLAMA.choice({ role: 'assistant', content: '' }, 'stop'),
  OLLAMA.noChoice({ usage: { prompt_tokens: 150, completion_tokens: 20, total_tokens: 170 } }),
  DONE,
]);

const GEMINI = chunker({ id: 'gem-3f9a0c', created: 1_751_901_400, model: 'gemini-2.5-flash' });

/** Gemini's OpenAI-compatible endpoint: no `index` on tool calls, a thought signature in `extra_content`. */
const geminiCalls = sse([
  GEMINI.choice({
    role: 'assistant',
    tool_calls: [
      {
        id: 'function-call-8213370871463941000',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
        extra_content: { google: { thought_signature: 'CvcBAdHtim9sig0Paris' } },
      },
    ],
  }),
  GEMINI.choice({
    role: 'assistant',
    tool_calls: [
      {
        id: 'function-call-8213370871463942000',
        type: 'function',
        function: { name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
      },
    ],
  }),
  GEMINI.choice({ role: 'assistant' }, 'tool_calls'),
  GEMINI.noChoice({ usage: { prompt_tokens: 70, completion_tokens: 30, total_tokens: 100 } }),
  DONE,
]);

/** A call of a tool that was not offered, with valid JSON arguments. */
const unknownTool = sse([
  OPENAI_4O.choice({
    role: 'assistant',
    content: null,
    ...start(0, 'call_unknown_tool_000000001', 'send_email'),
    refusal: null,
  }),
  OPENAI_4O.choice(argument(0, '{"to":"a@example.com"}')),
  OPENAI_4O.choice({}, 'tool_calls'),
  DONE,
]);

/** Arguments that are JSON but not an object (no schema check happens on the client). */
const nonObjectArguments = sse([
  OPENAI_4O.choice({
    role: 'assistant',
    content: null,
    ...start(0, 'call_array_args_00000000001', 'get_weather'),
    refusal: null,
  }),
  OPENAI_4O.choice(argument(0, '["Paris", "Tokyo"]')),
  OPENAI_4O.choice(start(1, 'call_string_args_0000000002', 'get_time')),
  OPENAI_4O.choice(argument(1, '"UTC"')),
  OPENAI_4O.choice({}, 'tool_calls'),
  DONE,
]);

/** Text after the tool calls (some local models narrate after calling). */
const textAfterCalls = sse([
  OLLAMA.choice({
    role: 'assistant',
    content: '',
    tool_calls: [
      {
        id: 'call_first',
        index: 0,
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Madrid"}' },
      },
    ],
  }),
  OLLAMA.choice({ content: 'I called the weather tool.' }),
  OLLAMA.choice({ content: '' }, 'tool_calls'),
  DONE,
]);

/** Tool choice none, yet the server returns a call (servers that ignore tool_choice). */
const callDespiteNone = sse([
  OPENAI_4O.choice({ role: 'assistant', content: 'Let me look that up.', refusal: null }),
  OPENAI_4O.choice(start(0, 'call_ignored_choice_0000001', 'get_weather')),
  OPENAI_4O.choice(argument(0, '{"city":"Paris"}')),
  OPENAI_4O.choice({}, 'tool_calls'),
  usage(90, 20),
  DONE,
]);

/** A forced tool choice answered with text only. */
const textDespiteForced = sse([
  OPENAI_4O.choice({ role: 'assistant', content: 'It is sunny in Paris.', refusal: null }),
  OPENAI_4O.choice({}, 'stop'),
  usage(90, 8),
  DONE,
]);

/** A forced tool choice answered with that tool. */
const forcedCall = sse([
  OPENAI_4O.choice({
    role: 'assistant',
    content: null,
    ...start(0, 'call_forced_0000000000001', 'get_weather'),
    refusal: null,
  }),
  OPENAI_4O.choice(argument(0, '{"city":"Paris"}')),
  OPENAI_4O.choice({}, 'stop'),
  usage(90, 12),
  DONE,
]);

export const TOOL_CALL_QUIRK_CASES: readonly CorpusCase[] = [
  {
    name: 'tools: arguments that are not valid JSON',
    call: toolQuestion(),
    reply: streamed(invalidArguments),
  },
  {
    name: 'tools: a parameterless tool called with "" and with "{}" as arguments',
    call: toolQuestion({ tools: [NOW_TOOL], messages: [{ role: 'user', content: 'What time is it?' }] }),
    reply: streamed(emptyArguments),
  },
  {
    name: 'tools: the whole call in one delta and finish_reason stop (Ollama)',
    call: toolQuestion(),
    reply: streamed(wholeCallStop, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'tools: calls without index and a thought signature in extra_content (Gemini OpenAI compatibility, provider name with a dot)',
    call: toolQuestion({ model: { provider: 'gemini.compat', vendorModelId: 'gemini-2.5-flash' } }),
    reply: streamed(geminiCalls, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'tools: a call of a tool that was not offered',
    call: toolQuestion(),
    reply: streamed(unknownTool),
  },
  {
    name: 'tools: arguments that are JSON but not objects (an array, a string)',
    call: toolQuestion(),
    reply: streamed(nonObjectArguments),
  },
  {
    name: 'tools: text after a tool call',
    call: toolQuestion(),
    reply: streamed(textAfterCalls, { headers: { 'content-type': 'text/event-stream' } }),
  },
  {
    name: 'tools: tool choice none but the server still sends a call',
    call: toolQuestion({ toolChoice: 'none' }),
    reply: streamed(callDespiteNone),
  },
  {
    name: 'tools: forced tool choice answered with text only',
    call: toolQuestion({ toolChoice: { toolName: 'get_weather' } }),
    reply: streamed(textDespiteForced),
  },
  {
    name: 'tools: forced tool choice answered with that tool (finish_reason stop)',
    call: toolQuestion({ toolChoice: { toolName: 'get_weather' } }),
    reply: streamed(forcedCall),
  },
];
