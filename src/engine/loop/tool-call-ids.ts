import type { ModelMessage } from 'ai';
import type { CompletedTurn } from '../ports.ts';

/**
 * Makes a turn's tool-call ids unique within the conversation. Some OpenAI-compatible servers
 * number calls per reply (`call_0` every turn), but a run's `toolUseId`s must each name one call,
 * and a provider pairs results with calls by id. A repeated id becomes `<id>_2` (or the next free
 * suffix) in both the tool calls and the assistant message sent back on the next turn.
 */
export function withUniqueToolCallIds(
  turn: CompletedTurn,
  conversation: readonly ModelMessage[],
): CompletedTurn {
  if (turn.toolCalls.length === 0) return turn;
  const used = toolCallIdsIn(conversation);
  const assigned = new Map<string, string[]>();
  let renamed = false;
  const toolCalls = turn.toolCalls.map((call) => {
    let id = call.id;
    for (let suffix = 2; used.has(id); suffix++) id = `${call.id}_${suffix}`;
    used.add(id);
    assigned.set(call.id, [...(assigned.get(call.id) ?? []), id]);
    if (id === call.id) return call;
    renamed = true;
    return { ...call, id };
  });
  if (!renamed) return turn;
  const responseMessages = turn.responseMessages.map((message) => {
    if (message.role !== 'assistant' || typeof message.content === 'string') return message;
    const content = message.content.map((part) => {
      if (part.type !== 'tool-call') return part;
      const id = assigned.get(part.toolCallId)?.shift();
      return id === undefined || id === part.toolCallId ? part : { ...part, toolCallId: id };
    });
    return { ...message, content };
  });
  return { ...turn, toolCalls, responseMessages };
}

function toolCallIdsIn(messages: readonly ModelMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) if (part.type === 'tool-call') ids.add(part.toolCallId);
  }
  return ids;
}
