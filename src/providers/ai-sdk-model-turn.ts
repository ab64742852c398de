import {
  experimental_streamLanguageModelCall as streamLanguageModelCall,
  Output,
  jsonSchema,
  ToolChoiceViolationError,
  type ContentPart,
  type JSONSchema7,
  type LanguageModel,
  type ModelMessage,
  type ToolChoice,
  type ToolSet,
} from 'ai';
import {
  ModelTurnError,
  type CompletedTurn,
  type ModelCall,
  type ModelPort,
  type ModelTurnOutput,
  type ToolCallRequest,
} from '../engine/ports.ts';
import { assistantMessageOf } from './assistant-message.ts';
import { toolFilesAsUserMessages } from './chat-tool-files.ts';
import { classifyProviderError } from './error-classification.ts';
import { canonicalFinishReason } from './finish-reason.ts';
import { createLanguageModel } from './language-model.ts';
import { reasoningCallSettings } from './reasoning.ts';
import { modelToolSet } from './tool-set.ts';
import { usageOf } from './token-usage.ts';
import { zeroUsage } from '../domain/usage.ts';

/** A model call as the AI SDK takes it, on the thread that runs it. */
interface ModelTurnRequest {
  model: LanguageModel;
  instructions: string;
  messages: ModelMessage[];
  tools?: ToolSet;
  toolChoice?: ToolChoice<ToolSet>;
  responseFormat?: ModelCall['responseFormat'];
  providerOptions?: Record<string, Record<string, unknown>>;
  reasoning?: ReturnType<typeof reasoningCallSettings>['reasoning'];
  /** Forward thought parts (only when a reasoning level above 0 was requested). */
  streamThinking: boolean;
  abortSignal: AbortSignal;
  headers?: Record<string, string>;
}

/** Runs each model call through the AI SDK, on the calling thread. */
export const aiSdkModelPort: ModelPort = {
  call: (call, signal, output) => streamModelTurn(modelTurnRequest(call, signal), output),
  close: async () => {},
};

function modelTurnRequest(call: ModelCall, abortSignal: AbortSignal): ModelTurnRequest {
  const { model, tools, toolChoice, responseFormat, reasoningLevel } = call;
  const reasoning = reasoningCallSettings(model.api, reasoningLevel, model.vendorModelId);
  return {
    model: createLanguageModel(model),
    instructions: call.instructions,
    messages: model.api === 'openai-chat' ? toolFilesAsUserMessages(call.messages) : call.messages,
    ...(tools && { tools: modelToolSet(tools) }),
    ...(toolChoice && {
      toolChoice:
        typeof toolChoice === 'string' ? toolChoice : { type: 'tool', toolName: toolChoice.toolName },
    }),
    ...(responseFormat && { responseFormat }),
    ...(reasoning.providerOptions && { providerOptions: reasoning.providerOptions }),
    ...(reasoning.reasoning && { reasoning: reasoning.reasoning }),
    streamThinking: reasoning.exposesThinking && (reasoningLevel ?? 0) > 0,
    abortSignal,
    ...(call.headers && { headers: call.headers }),
  };
}

/**
 * One model invocation, streamed: text and thought deltas go to `output` as
 * they arrive; the call settles with the completed turn, throws
 * `ModelTurnError` when the provider fails, or rethrows the abort reason when
 * its signal is aborted.
 */
async function streamModelTurn(request: ModelTurnRequest, output: ModelTurnOutput): Promise<CompletedTurn> {
  let text = '';
  let emitted = false;
  let failure: unknown;
  let finishReason: string | null = null;
  let rawFinishReason: string | undefined;
  let usage = zeroUsage();
  const toolCalls: ToolCallRequest[] = [];
  let content: ReadonlyArray<ContentPart<ToolSet>> = [];
  try {
    // One model call, without streamText's step machinery (measurably cheaper per chunk): our loop
    // owns the steps, and the content the SDK collects gives the assistant message for the next turn.
    const { stream } = await streamLanguageModelCall({
      model: request.model,
      instructions: request.instructions,
      messages: request.messages,
      ...(request.tools && { tools: request.tools }),
      ...(request.toolChoice && { toolChoice: request.toolChoice }),
      ...(request.responseFormat && {
        output: Output.object({
          schema: jsonSchema(request.responseFormat.schema as JSONSchema7),
          name: request.responseFormat.name,
        }),
      }),
      ...(request.providerOptions && { providerOptions: request.providerOptions as never }),
      ...(request.reasoning && { reasoning: request.reasoning }),
      abortSignal: request.abortSignal,
      ...(request.headers && { headers: request.headers }),
      // The provider fetches `input_file_url` attachments itself; the service never downloads them.
      download: async (urls) => urls.map(() => null),
      onLanguageModelCallEnd: (event) => {
        content = event.content;
      },
    });
    for await (const part of stream) {
      switch (part.type) {
        case 'text-delta':
          if (part.text === '') break;
          text += part.text;
          emitted = true;
          output.onText(part.text);
          break;
        case 'reasoning-delta':
          if (request.streamThinking && part.text !== '') {
            emitted = true;
            output.onThinking(part.text);
          }
          break;
        case 'tool-call':
          toolCalls.push({ id: part.toolCallId, name: part.toolName, input: part.input });
          break;
        case 'model-call-end':
          usage = usageOf(part.usage);
          finishReason = canonicalFinishReason(part.finishReason, part.rawFinishReason);
          rawFinishReason = part.rawFinishReason;
          break;
        case 'error':
          // A tool choice the model did not follow: the SDK reports a violation, and the turn still
          // ends as it came (the run's controls decide what follows). Tool calls on a tools-disabled
          // turn (a provider that ignores tool choice none) are withheld; a forced tool left uncalled
          // (Anthropic with thinking sends a forced choice as auto) leaves the turn with its text.
          if (request.toolChoice !== undefined && ToolChoiceViolationError.isInstance(part.error)) {
            finishReason =
              request.toolChoice === 'none'
                ? 'tool_use'
                : canonicalFinishReason(part.error.finishReason, rawFinishReason);
            break;
          }
          failure ??= part.error;
          break;
        default:
          break;
      }
    }
    if (failure === undefined) {
      return { text, finishReason, toolCalls, usage, responseMessages: assistantMessageOf(content) };
    }
  } catch (error) {
    failure = error;
  }
  if (request.abortSignal.aborted) throw request.abortSignal.reason;
  throw new ModelTurnError(classifyProviderError(failure), text, emitted);
}
