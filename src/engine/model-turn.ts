import {
  experimental_streamLanguageModelCall as streamLanguageModelCall,
  ToolChoiceViolationError,
  type ContentPart,
  type LanguageModel,
  type ModelMessage,
  type ToolSet,
} from 'ai';
import { assistantMessageOf } from './assistant-message.ts';
import { canonicalFinishReason } from '../providers/finish-reason.ts';
import { classifyProviderError, type ProviderFailure } from '../providers/error-classification.ts';
import { toolFilesAsUserMessages } from '../providers/chat-tool-files.ts';
import { createLanguageModel } from '../providers/language-model.ts';
import { modelToolSet } from '../tools/run-tools.ts';
import type { ModelCall, ModelCaller } from './ports.ts';
import { usageOf, zeroUsage, type TokenUsage } from './token-usage.ts';

/** A model call as the AI SDK takes it, on the thread that runs it. */
export interface ModelTurnRequest extends Omit<ModelCall, 'model' | 'tools'> {
  model: LanguageModel;
  tools?: ToolSet;
  abortSignal: AbortSignal;
}

export interface ModelTurnOutput {
  onText(text: string): void;
  onThinking(text: string): void;
}

export interface ToolCallRequest {
  id: string;
  name: string;
  input: unknown;
}

export interface CompletedTurn {
  text: string;
  finishReason: string | null;
  toolCalls: ToolCallRequest[];
  usage: TokenUsage;
  /** The assistant messages as the SDK built them (reasoning signatures included), for the next turn. */
  responseMessages: ModelMessage[];
}

/** A model call that failed; `emittedOutput` tells whether deltas already reached the client. */
export class ModelTurnError extends Error {
  readonly failure: ProviderFailure;
  readonly partialText: string;
  readonly emittedOutput: boolean;
  constructor(failure: ProviderFailure, partialText: string, emittedOutput: boolean) {
    super(failure.message);
    this.name = 'ModelTurnError';
    this.failure = failure;
    this.partialText = partialText;
    this.emittedOutput = emittedOutput;
  }
}

/**
 * A model call that broke off outside the provider (its model thread stopped); `partialText` is the
 * model's text streamed before that.
 */
export class InterruptedModelCall extends Error {
  readonly partialText: string;
  constructor(partialText: string, cause: unknown) {
    super(`the model call broke off: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'InterruptedModelCall';
    this.partialText = partialText;
  }
}

/** Runs each model call on the calling thread (no model threads). */
export const inThreadModelCaller: ModelCaller = {
  call: (call, signal, output) => streamModelTurn(modelTurnRequest(call, signal), output),
  close: async () => {},
};

function modelTurnRequest(call: ModelCall, abortSignal: AbortSignal): ModelTurnRequest {
  const { model, tools, ...settings } = call;
  return {
    ...settings,
    ...(model.api === 'openai-chat' && { messages: toolFilesAsUserMessages(settings.messages) }),
    model: createLanguageModel(model),
    ...(tools && { tools: modelToolSet(tools) }),
    abortSignal,
  };
}

/**
 * One model invocation, streamed: text and thought deltas go to `output` as
 * they arrive; the call settles with the completed turn, throws
 * `ModelTurnError` when the provider fails, or rethrows the abort reason when
 * its signal is aborted (the service stopping; a cancelled run finishes its turn).
 */
export async function streamModelTurn(
  request: ModelTurnRequest,
  output: ModelTurnOutput,
): Promise<CompletedTurn> {
  let text = '';
  let emitted = false;
  let failure: unknown;
  let finishReason: string | null = null;
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
      ...(request.providerOptions && { providerOptions: request.providerOptions as never }),
      ...(request.reasoning && { reasoning: request.reasoning }),
      abortSignal: request.abortSignal,
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
          break;
        case 'error':
          // Tool calls on a tools-disabled turn (a provider that ignores tool choice none): the SDK
          // withholds them and reports a violation; the turn still ends with its text, as asked.
          if (request.toolChoice === 'none' && ToolChoiceViolationError.isInstance(part.error)) {
            finishReason = 'tool_use';
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
