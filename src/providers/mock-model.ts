import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4ToolResultOutput,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';

/**
 * The built-in offline provider (`api: 'mock'`): a deterministic, streaming model for demos and
 * tests that needs no network and no key. It echoes the last user message word by word; on
 * `call <tool> {json}` it calls that tool when the tool is offered; after a tool result it reports
 * it. Model ids starting with `slow` pause about 20 ms between chunks; `providerOptions.mock.thinking`
 * streams a short thought first; `maxOutputTokens` truncates the reply (finish reason `length`).
 */
export function createMockLanguageModel(vendorModelId: string): LanguageModelV4 {
  const chunkDelayMs = vendorModelId.startsWith('slow') ? SLOW_CHUNK_DELAY_MS : 0;
  return {
    specificationVersion: 'v4',
    provider: 'mock',
    modelId: vendorModelId,
    // Accept URL parts as they are: the mock reads no files, so nothing needs downloading.
    supportedUrls: { '*/*': [/^https?:\/\//] },

    async doGenerate(options) {
      options.abortSignal?.throwIfAborted();
      const reply = planReply(options);
      if (chunkDelayMs > 0) await sleep(chunkDelayMs, undefined, signalOption(options.abortSignal));
      const content: LanguageModelV4Content[] = [];
      if (reply.reasoning !== '') content.push({ type: 'reasoning', text: reply.reasoning });
      if (reply.text !== '') content.push({ type: 'text', text: reply.text });
      for (const call of reply.toolCalls) content.push({ type: 'tool-call', ...call });
      return {
        content,
        finishReason: reply.finishReason,
        usage: reply.usage,
        warnings: [],
        response: { id: `mock-${randomUUID()}`, modelId: vendorModelId, timestamp: new Date() },
      };
    },

    async doStream(options) {
      options.abortSignal?.throwIfAborted();
      const parts = streamParts(planReply(options), vendorModelId);
      return { stream: partStream(parts, chunkDelayMs, options.abortSignal) };
    },
  };
}

const SLOW_CHUNK_DELAY_MS = 20;
const GREETING = 'Hello! I am the mock model. Send me a message and I will echo it back.';

interface MockToolCall {
  toolCallId: string;
  toolName: string;
  /** The arguments as a JSON string, as providers send them. */
  input: string;
}

interface MockReply {
  reasoning: string;
  text: string;
  toolCalls: MockToolCall[];
  finishReason: LanguageModelV4FinishReason;
  usage: LanguageModelV4Usage;
}

function planReply(options: LanguageModelV4CallOptions): MockReply {
  const { prompt } = options;
  const last = prompt.at(-1);
  const toolReport = last?.role === 'tool' ? toolResultReport(last.content) : undefined;
  const userText = toolReport === undefined ? lastUserText(prompt) : '';
  const toolCalls = toolReport === undefined ? requestedToolCalls(userText, options) : [];

  let text =
    toolCalls.length > 0 ? '' : (toolReport ?? (userText === '' ? GREETING : `You said: ${userText}`));
  if (options.responseFormat?.type === 'json' && toolCalls.length === 0) {
    text = isJson(userText) ? userText : JSON.stringify({ reply: text });
  }
  let finishReason: LanguageModelV4FinishReason =
    toolCalls.length > 0 ? { unified: 'tool-calls', raw: 'tool_use' } : { unified: 'stop', raw: 'end_turn' };
  const maxChars = options.maxOutputTokens === undefined ? Infinity : options.maxOutputTokens * 4;
  if (text.length > maxChars) {
    text = truncateAtWord(text, maxChars);
    finishReason = { unified: 'length', raw: 'max_tokens' };
  }

  const thinking = options.providerOptions?.mock?.thinking === true;
  const reasoning = !thinking
    ? ''
    : toolCalls.length > 0
      ? `The user asked me to call ${toolCalls.map((call) => call.toolName).join(' and ')}.`
      : toolReport !== undefined
        ? 'A tool result came back; I will report it.'
        : 'The user wrote to me; I will echo their words back.';

  const toolChars = toolCalls.reduce((sum, call) => sum + call.input.length, 0);
  const textTokens = tokens(text.length + toolChars);
  const reasoningTokens = tokens(reasoning.length);
  const inputTokens = tokens(promptChars(prompt));
  return {
    reasoning,
    text,
    toolCalls,
    finishReason,
    usage: {
      inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: textTokens + reasoningTokens, text: textTokens, reasoning: reasoningTokens },
    },
  };
}

function streamParts(reply: MockReply, modelId: string): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'response-metadata', id: `mock-${randomUUID()}`, modelId, timestamp: new Date() },
  ];
  if (reply.reasoning !== '') {
    parts.push({ type: 'reasoning-start', id: 'reasoning-0' });
    for (const delta of words(reply.reasoning))
      parts.push({ type: 'reasoning-delta', id: 'reasoning-0', delta });
    parts.push({ type: 'reasoning-end', id: 'reasoning-0' });
  }
  if (reply.text !== '') {
    parts.push({ type: 'text-start', id: 'text-0' });
    for (const delta of words(reply.text)) parts.push({ type: 'text-delta', id: 'text-0', delta });
    parts.push({ type: 'text-end', id: 'text-0' });
  }
  for (const call of reply.toolCalls) {
    parts.push(
      { type: 'tool-input-start', id: call.toolCallId, toolName: call.toolName },
      { type: 'tool-input-delta', id: call.toolCallId, delta: call.input },
      { type: 'tool-input-end', id: call.toolCallId },
      { type: 'tool-call', ...call },
    );
  }
  parts.push({ type: 'finish', finishReason: reply.finishReason, usage: reply.usage });
  return parts;
}

/** Streams the parts one per pull, pausing before deltas when asked; an abort errors the stream. */
function partStream(
  parts: LanguageModelV4StreamPart[],
  delayMs: number,
  signal: AbortSignal | undefined,
): ReadableStream<LanguageModelV4StreamPart> {
  let index = 0;
  return new ReadableStream({
    async pull(controller) {
      const part = parts[index++];
      if (part === undefined) return controller.close();
      try {
        const isDelta = part.type === 'text-delta' || part.type === 'reasoning-delta';
        if (isDelta && delayMs > 0) await sleep(delayMs, undefined, signalOption(signal));
        signal?.throwIfAborted();
      } catch (error) {
        // Like a real provider's fetch, the stream fails with the signal's reason.
        controller.error(signal?.aborted ? signal.reason : error);
        return;
      }
      controller.enqueue(part);
    },
  });
}

function signalOption(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}

function lastUserText(prompt: LanguageModelV4Prompt): string {
  for (let index = prompt.length - 1; index >= 0; index--) {
    const message = prompt[index];
    if (message?.role !== 'user') continue;
    const texts = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : []));
    return texts.join(' ').trim();
  }
  return '';
}

function toolResultReport(content: Extract<LanguageModelV4Prompt[number], { role: 'tool' }>['content']) {
  const lines = content.flatMap((part) =>
    part.type === 'tool-result' ? [`Tool ${part.toolName} returned: ${outputText(part.output)}`] : [],
  );
  return lines.length === 0 ? undefined : lines.join('\n');
}

function outputText(output: LanguageModelV4ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'execution-denied':
      return output.reason === undefined ? 'denied' : `denied: ${output.reason}`;
    case 'content':
      return output.value.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(' ');
  }
}

/** Every `call <name> {json object}` in the text whose tool the call offers, in order. */
function requestedToolCalls(text: string, options: LanguageModelV4CallOptions): MockToolCall[] {
  const choice = options.toolChoice;
  if (choice?.type === 'none') return [];
  const offered = new Set(
    (options.tools ?? []).flatMap((tool) => (tool.type === 'function' ? [tool.name] : [])),
  );
  const calls: MockToolCall[] = [];
  for (const match of text.matchAll(/\bcall\s+([A-Za-z0-9_-]{1,64})\s*(?=\{)/g)) {
    const name = match[1] ?? '';
    if (!offered.has(name) || (choice?.type === 'tool' && choice.toolName !== name)) continue;
    const input = jsonObjectAt(text, match.index + match[0].length);
    if (input !== undefined) calls.push({ toolCallId: `call_${randomUUID()}`, toolName: name, input });
  }
  return calls;
}

/** The JSON object text starting at `start` (balanced braces, strings respected), if it parses. */
function jsonObjectAt(text: string, start: number): string | undefined {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let index = start; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth++;
    else if (char === '}' && --depth === 0) {
      const candidate = text.slice(start, index + 1);
      return isJson(candidate) ? JSON.stringify(JSON.parse(candidate)) : undefined;
    }
  }
  return undefined;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return text.trim() !== '';
  } catch {
    return false;
  }
}

/** Word-sized chunks (each word with the whitespace after it), which rejoin to the text. */
function words(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? [text];
}

function truncateAtWord(text: string, maxChars: number): string {
  let result = '';
  for (const word of words(text)) {
    if (result.length + word.length > maxChars) break;
    result += word;
  }
  return result;
}

function promptChars(prompt: LanguageModelV4Prompt): number {
  let chars = 0;
  for (const message of prompt) {
    if (message.role === 'system') {
      chars += message.content.length;
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'reasoning') chars += part.text.length;
      else if (part.type === 'tool-call') chars += JSON.stringify(part.input ?? null).length;
      else if (part.type === 'tool-result') chars += outputText(part.output).length;
    }
  }
  return chars;
}

function tokens(chars: number): number {
  return Math.ceil(chars / 4);
}
