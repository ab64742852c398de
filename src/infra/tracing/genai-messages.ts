import type { ModelMessage } from 'ai';
import type { CompletedTurn, ModelCall } from '../../engine/ports.ts';

/** One part of a message, in the GenAI semantic conventions' message schema. */
type MessagePart =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: unknown }
  | { type: 'file'; mime_type: string };

interface ChatMessage {
  role: string;
  parts: MessagePart[];
  finish_reason?: string;
}

/**
 * The span attributes holding a chat call's content (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`):
 * `gen_ai.system_instructions` and `gen_ai.input.messages` as JSON, in the conventions' schema.
 * File contents are never recorded, only their media type.
 */
export function chatInputAttributes(call: ModelCall): Record<string, string> {
  return {
    'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: call.instructions }]),
    'gen_ai.input.messages': JSON.stringify(call.messages.map(chatMessage)),
  };
}

/** `gen_ai.output.messages`: the reply's text and tool calls, with its finish reason. */
export function chatOutputAttributes(turn: CompletedTurn): Record<string, string> {
  const parts: MessagePart[] = [];
  if (turn.text !== '') parts.push({ type: 'text', content: turn.text });
  for (const call of turn.toolCalls) {
    parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: call.input });
  }
  const message: ChatMessage = {
    role: 'assistant',
    parts,
    ...(turn.finishReason !== null && { finish_reason: turn.finishReason }),
  };
  return { 'gen_ai.output.messages': JSON.stringify([message]) };
}

function chatMessage(message: ModelMessage): ChatMessage {
  if (typeof message.content === 'string') {
    return { role: message.role, parts: [{ type: 'text', content: message.content }] };
  }
  const parts: MessagePart[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        parts.push({ type: 'text', content: part.text });
        break;
      case 'reasoning':
        parts.push({ type: 'reasoning', content: part.text });
        break;
      case 'tool-call':
        parts.push({ type: 'tool_call', id: part.toolCallId, name: part.toolName, arguments: part.input });
        break;
      case 'tool-result':
        parts.push({ type: 'tool_call_response', id: part.toolCallId, response: part.output });
        break;
      case 'file':
      case 'image':
        parts.push({ type: 'file', mime_type: 'mediaType' in part ? String(part.mediaType) : 'image' });
        break;
      default:
        // Provider-specific parts (approvals, custom parts) carry no conversation content.
        break;
    }
  }
  return { role: message.role, parts };
}
