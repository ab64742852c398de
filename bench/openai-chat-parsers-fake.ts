/**
 * The fake OpenAI Chat Completions provider of bench/openai-chat-parsers.ts, in its own process so its
 * CPU is not charged to the consumers being measured. One server on 127.0.0.1 per variant
 * (bench/openai-chat-variants.ts), each repeating its variant's turn for every request; the ready
 * message's `info.urls` maps each variant to its base URL.
 *
 * The text, reasoning and usage variants are served by the test suite's fake (test/fakes/fake-openai-chat.ts).
 * It splits tool-call arguments into 3 pieces; real servers send a few characters per chunk, so the
 * tools variant is served by the wire below, which writes the same chunks with arguments in
 * `argumentFragmentChars`-character fragments.
 * Whether a stream ends with the usage-only chunk is the variant's, not the client's, choice: every
 * consumer asks for it (as the service does), and the server rewrites `stream_options` per variant.
 */
import { startFakeOpenAIChat } from '../test/fakes/fake-openai-chat.ts';
import {
  startScriptedServer,
  type FakeProviderServer,
  type RecordedRequest,
  type ScriptedTurn,
  type SseEvent,
  type WireFormat,
} from '../test/fakes/scripted-reply.ts';
import { serveParent } from './ipc.ts';
import { VARIANT_NAMES, VARIANTS, type Variant } from './openai-chat-variants.ts';

let completions = 0;

/** An OpenAI Chat wire whose tool-call arguments arrive `fragmentChars` characters at a time. */
function fineToolArgumentsWire(fragmentChars: number): WireFormat {
  const finishReason = (turn: ScriptedTurn) => ((turn.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop');
  return {
    endpoint: '/v1/chat/completions',
    wantsStream: (body) => body.stream === true,
    streamEvents(turn, body) {
      const base = {
        id: `chatcmpl-fake${++completions}`,
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model: typeof body.model === 'string' ? body.model : 'fake-model',
        system_fingerprint: 'fp_fake',
      };
      const chunk = (delta: Record<string, unknown>, finish: string | null = null): SseEvent => ({
        data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] },
      });
      const deltas: Record<string, unknown>[] = (turn.text ?? []).map((piece) => ({ content: piece }));
      for (const [index, call] of (turn.toolCalls ?? []).entries()) {
        const start = { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
        deltas.push({ tool_calls: [start] });
        const json = JSON.stringify(call.input);
        for (let at = 0; at < json.length; at += fragmentChars) {
          deltas.push({
            tool_calls: [{ index, function: { arguments: json.slice(at, at + fragmentChars) } }],
          });
        }
      }
      const [first = { content: '' }, ...rest] = deltas;
      const events = [chunk({ role: 'assistant', ...first }), ...rest.map((delta) => chunk(delta))];
      events.push(chunk({}, finishReason(turn)));
      const options = body.stream_options as { include_usage?: boolean } | undefined;
      if (options?.include_usage === true) {
        const { inputTokens = 0, outputTokens = 0 } = turn.usage ?? {};
        const usage = {
          prompt_tokens: inputTokens,
          completion_tokens: outputTokens,
          total_tokens: inputTokens + outputTokens,
          prompt_tokens_details: { cached_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0 },
        };
        events.push({ data: { ...base, choices: [], usage } });
      }
      events.push({ data: '[DONE]' });
      return events;
    },
    jsonResponse: () => ({
      error: { message: 'the bench serves streams only', type: 'invalid_request_error' },
    }),
    errorBody: (status, message) => ({
      error: {
        message,
        type: status >= 500 ? 'server_error' : 'invalid_request_error',
        param: null,
        code: null,
      },
    }),
  };
}

async function serve(variant: Variant): Promise<FakeProviderServer> {
  const fake =
    variant.argumentFragmentChars === undefined
      ? await startFakeOpenAIChat([variant.turn])
      : await startScriptedServer(fineToolArgumentsWire(variant.argumentFragmentChars), [variant.turn]);
  // The fake hands each request's parsed body to its wire right after recording it: set the
  // variant's stream_options there, and keep no record (the bench sends tens of thousands).
  fake.requests.push = (...requests: RecordedRequest[]) => {
    for (const request of requests) {
      if (typeof request.body === 'object' && request.body !== null)
        (request.body as Record<string, unknown>).stream_options = { include_usage: variant.usageChunk };
    }
    return 0;
  };
  return fake;
}

const servers = await Promise.all(VARIANT_NAMES.map((name) => serve(VARIANTS[name])));
const urls = Object.fromEntries(VARIANT_NAMES.map((name, index) => [name, servers[index]?.url]));

serveParent({ type: 'ready', url: servers[0]?.url ?? '', info: { urls } }, {}, async () => {
  await Promise.all(servers.map((server) => server.close()));
});
