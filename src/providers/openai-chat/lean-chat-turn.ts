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
 * the request is built by the SDK's own pieces, the response stream is read here (fetch, an SSE
 * parser, `JSON.parse`). Differential tests hold it to what the AI SDK path gives for the same stream.
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
  response: Response,
  request: ChatRequest,
  assembler: ChatTurnAssembler,
): Promise<void> {
  const body = response.body;
  if (body === null) throw new EmptyResponseBodyError({});
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = createParser({
    onEvent: (event) => {
      if (event.data !== '[DONE]') assembler.data(event.data);
    },
  });
  try {
    for (;;) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (error) {
        if (isAbortError(error)) throw error;
        throw new APICallError({
          message: 'Failed to process successful response',
          cause: error,
          statusCode: response.status,
          url: request.url,
          responseHeaders: extractResponseHeaders(response),
          requestBodyValues: request.body,
        });
      }
      if (read.done) return;
      parser.feed(decoder.decode(read.value, { stream: true }));
    }
  } catch (error) {
    // The turn stops here: close the connection rather than leave the rest of the body unread.
    await reader.cancel().catch(() => {});
    throw error;
  }
}

const STREAMING_BODY: ResponseHandler<Response> = async ({ response }) => {
  if (response.body === null) throw new EmptyResponseBodyError({});
  return { value: response, responseHeaders: extractResponseHeaders(response) };
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
