import { EmptyResponseBodyError, APICallError } from '@ai-sdk/provider';
import {
  createJsonErrorResponseHandler,
  extractResponseHeaders,
  isAbortError,
  postJsonToApi,
  safeValidateTypes,
  type FlexibleSchema,
  type ResponseHandler,
} from '@ai-sdk/provider-utils';
import { createParser } from 'eventsource-parser';
import { request as undiciRequest, type Dispatcher } from 'undici';
import { z } from 'zod';
import {
  ModelTurnError,
  type CompletedTurn,
  type ModelCall,
  type ModelPort,
  type ModelTurnOutput,
} from '../../engine/ports.ts';
import { assistantMessageOf } from '../assistant-message.ts';
import { classifyProviderError } from '../error-classification.ts';
import { canonicalFinishReason } from '../finish-reason.ts';
import { createLanguageModel } from '../language-model.ts';
import { chatRequest, type ChatRequest } from './chat-request.ts';
import { ChatTurnAssembler, UnreadableChunk, type AssembledTurn } from './chat-turn-assembler.ts';

/**
 * Model calls to OpenAI-compatible servers (`openai-chat`) without the AI SDK's per-chunk path:
 * the request is built by the SDK's own pieces and posted by its `postJsonToApi` (headers, error
 * responses, connection failures as the SDK reports them); the response stream is read here (undici's
 * `request` rather than fetch, an SSE parser, `JSON.parse`). Differential tests hold it to what the AI
 * SDK path gives for the same stream.
 */
export const leanChatModelPort: ModelPort = {
  call: (call, signal, output) => streamChatTurn(call, signal, output),
  close: async () => {},
};

async function streamChatTurn(
  call: ModelCall,
  signal: AbortSignal,
  output: ModelTurnOutput,
): Promise<CompletedTurn> {
  let assembler: ChatTurnAssembler | undefined;
  let failure: unknown;
  try {
    const request = await chatRequest(call, signal);
    const { value: response } = await postJsonToApi({
      url: request.url,
      headers: call.headers ? { ...request.headers, ...call.headers } : request.headers,
      body: request.body,
      failedResponseHandler: CHAT_ERROR_HANDLER,
      successfulResponseHandler: STREAMING_BODY,
      abortSignal: signal,
      fetch: streamingFetch,
    });
    assembler = new ChatTurnAssembler(request, output);
    await readEvents(response, request, assembler);
    const turn = assembler.finish();
    if (turn.failure === undefined) return completedTurn(turn);
    failure =
      turn.failure instanceof UnreadableChunk ? await unreadableChunkError(call, turn.failure) : turn.failure;
  } catch (error) {
    failure = error;
  }
  if (signal.aborted) throw signal.reason;
  throw new ModelTurnError(
    classifyProviderError(failure),
    assembler?.text ?? '',
    assembler?.emitted ?? false,
  );
}

function completedTurn(turn: AssembledTurn): CompletedTurn {
  return {
    text: turn.text,
    finishReason: turn.withheldToolCalls
      ? 'tool_use'
      : canonicalFinishReason(turn.finishReason.unified, turn.finishReason.raw),
    toolCalls: turn.toolCalls,
    usage: turn.usage,
    responseMessages: assistantMessageOf(turn.content),
  };
}

/** The body's SSE events, each `data` handed to the assembler as it arrives (`[DONE]` is the end marker). */
async function readEvents(
  { response, body }: StreamedResponse,
  request: ChatRequest,
  assembler: ChatTurnAssembler,
): Promise<void> {
  const decoder = new TextDecoder();
  const parser = createParser({
    onEvent: (event) => {
      if (event.data !== '[DONE]') assembler.data(event.data);
    },
  });
  await new Promise<void>((resolve, reject) => {
    const stop = (error: unknown) => {
      // The turn stops here: close the connection rather than leave the rest of the body unread.
      body.destroy();
      reject(error);
    };
    body.on('data', (chunk: Buffer) => {
      try {
        parser.feed(decoder.decode(chunk, { stream: true }));
      } catch (error) {
        stop(error);
      }
    });
    body.once('end', resolve);
    body.once('error', (error) => {
      if (isAbortError(error)) return stop(error);
      stop(
        new APICallError({
          message: 'Failed to process successful response',
          // Worded as fetch words a body cut off (`TypeError: terminated`, undici's error as its cause).
          cause: new TypeError('terminated', { cause: error }),
          statusCode: response.status,
          url: request.url,
          responseHeaders: extractResponseHeaders(response),
          requestBodyValues: request.body,
        }),
      );
    });
  });
}

/** A 2xx answer: its status and headers as a Response (what the SDK's handlers read), its body as undici gave it. */
interface StreamedResponse {
  response: Response;
  body: Dispatcher.ResponseData['body'];
}

/** The streamed bodies of the 2xx responses `streamingFetch` made, for `STREAMING_BODY` to take. */
const streamedBodies = new WeakMap<Response, Dispatcher.ResponseData['body']>();

/**
 * The request `postJsonToApi` sends, made with undici's `request`: a 2xx body is read as a Node
 * stream, which costs a third less CPU per chunk than fetch's web stream (measured with the bench's
 * 51-chunk replies). An error answer is read whole into a Response for the SDK's error handler, and a
 * failure to connect is raised as fetch raises it (`TypeError: fetch failed`, the cause attached), so
 * that the SDK reports both exactly as it does for fetch.
 */
async function streamingFetch(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
  let answer: Dispatcher.ResponseData;
  try {
    answer = await undiciRequest(String(input), {
      method: 'POST',
      headers: init?.headers as Record<string, string>,
      body: init?.body as string,
      signal: init?.signal ?? null,
    });
  } catch (error) {
    if (isAbortError(error)) throw error;
    throw new TypeError('fetch failed', { cause: error });
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (Array.isArray(value)) for (const each of value) headers.append(name, each);
    else if (value !== undefined) headers.set(name, value);
  }
  const { statusCode, statusText } = answer;
  if (statusCode < 200 || statusCode > 299) {
    return new Response(await answer.body.text(), { status: statusCode, statusText, headers });
  }
  const response = new Response(null, { status: statusCode, statusText, headers });
  streamedBodies.set(response, answer.body);
  return response;
}

const STREAMING_BODY: ResponseHandler<StreamedResponse> = async ({ response }) => {
  const body = streamedBodies.get(response);
  if (body === undefined) throw new EmptyResponseBodyError({});
  return { value: { response, body }, responseHeaders: extractResponseHeaders(response) };
};

/** OpenAI-compatible error bodies (`{ error: { message, type, param, code } }`), read as the provider reads them. */
const CHAT_ERROR_HANDLER = createJsonErrorResponseHandler({
  errorSchema: z.object({
    error: z.object({
      message: z.string(),
      type: z.string().nullish(),
      param: z.any().nullish(),
      code: z.union([z.string(), z.number()]).nullish(),
    }),
  }),
  errorToMessage: (data) => data.error.message,
});

/** A chunk no schema admits, worded by the provider's own chunk schema, as on the SDK path. */
async function unreadableChunkError(call: ModelCall, chunk: UnreadableChunk): Promise<unknown> {
  const model = createLanguageModel(call.model) as unknown as { chunkSchema: FlexibleSchema<unknown> };
  const validation = await safeValidateTypes({ value: chunk.value, schema: model.chunkSchema });
  return validation.success ? new Error('a chunk the stream could not read') : validation.error;
}
