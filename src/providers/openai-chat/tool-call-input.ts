import type { LanguageModelV4StreamPart, SharedV4ProviderMetadata } from '@ai-sdk/provider';
import { secureJsonParse } from '@ai-sdk/provider-utils';
import type { ToolSet } from 'ai';

/** A tool call of the turn, as the AI SDK's content holds it. */
export interface ParsedToolCall {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** The call names no offered tool, or its arguments are not JSON: the model gets a structured error. */
  invalid?: true;
  dynamic?: true;
  providerMetadata?: SharedV4ProviderMetadata;
}

type ToolCallPart = Extract<LanguageModelV4StreamPart, { type: 'tool-call' }>;

/**
 * A call's arguments as the SDK parses them (no repair): empty arguments are `{}`; JSON (parsed
 * securely, without prototype keys) for an offered tool; anything else is an invalid call whose input
 * is the parsed JSON if any, else the raw text.
 */
export function parsedToolCall(part: ToolCallPart, tools: ToolSet | undefined): ParsedToolCall {
  const offered = tools !== undefined && Object.hasOwn(tools, part.toolName);
  const call = {
    type: 'tool-call' as const,
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    ...(part.providerMetadata !== undefined && { providerMetadata: part.providerMetadata }),
  };
  if (offered && part.input.trim() === '') return { ...call, input: {} };
  const parsed = parseJson(part.input);
  if (offered && parsed.success) return { ...call, input: parsed.value };
  return { ...call, input: parsed.success ? parsed.value : part.input, dynamic: true, invalid: true };
}

function parseJson(text: string): { success: true; value: unknown } | { success: false } {
  try {
    return { success: true, value: secureJsonParse(text) };
  } catch {
    return { success: false };
  }
}
