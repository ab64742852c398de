import type { ModelMessage } from 'ai';
import type { JudgeReviewRequest } from '../../engine/ports.ts';

/** The judge's system prompt: what it decides and the one reply it may give. */
export const JUDGE_INSTRUCTIONS = [
  'You supervise an AI agent working on a task for a user. Read the transcript of its run so far and',
  'decide whether it is on track. Choose one action:',
  '- "on_track": it is making reasonable progress toward what the user asked.',
  '- "redirect": it is off course, repeating itself or wasting effort; give it a short, concrete',
  '  instruction to get back on course.',
  '- "finalize": it has what it needs to answer, or further tool use will not help; it should stop',
  '  using tools and give its final answer now.',
  'Reply with only a JSON object, no other text:',
  '{"action": "on_track" | "redirect" | "finalize", "reason": "<one sentence>", "redirect": "<the instruction, only for redirect>"}',
].join('\n');

/** Bounds that keep the judge's prompt small whatever the run's size. */
const LIMITS = {
  transcript: 24_000,
  text: 2_000,
  toolArgs: 300,
  toolResult: 600,
  thoughts: 4_000,
};

/**
 * The judge's user message: the transcript (the first message, the task, and as many of the latest
 * as fit; long texts, arguments and tool results cut) and, mid-turn, the tail of the thoughts in flight.
 */
export function judgePrompt(request: JudgeReviewRequest): string {
  const sections = [`Transcript of the agent's run so far:\n\n${transcript(request.conversation)}`];
  if (request.phase === 'reasoning') {
    const thoughts = request.thoughts ?? '';
    const tail = thoughts.length > LIMITS.thoughts ? `…${thoughts.slice(-LIMITS.thoughts)}` : thoughts;
    sections.push(`The agent is in the middle of a turn. Its reasoning so far:\n\n${tail}`);
  }
  sections.push('Your verdict, as the JSON object only:');
  return sections.join('\n\n');
}

function transcript(conversation: readonly ModelMessage[]): string {
  const blocks = conversation.map(renderMessage).filter((block) => block !== '');
  const [first, ...rest] = blocks;
  if (first === undefined) return '(empty)';
  let budget = LIMITS.transcript - first.length;
  const tail: string[] = [];
  for (let index = rest.length - 1; index >= 0; index--) {
    const block = rest[index] ?? '';
    if (block.length > budget) break;
    budget -= block.length;
    tail.unshift(block);
  }
  const omitted = rest.length - tail.length;
  return [first, ...(omitted > 0 ? [`[… ${omitted} earlier messages omitted …]`] : []), ...tail].join('\n\n');
}

type Part = Record<string, unknown>;

function renderMessage(message: ModelMessage): string {
  const parts: Part[] =
    typeof message.content === 'string'
      ? [{ type: 'text', text: message.content }]
      : (message.content as unknown as Part[]);
  const lines = parts.map(renderPart).filter((line) => line !== '');
  return lines.length === 0 ? '' : `[${message.role}]\n${lines.join('\n')}`;
}

function renderPart(part: Part): string {
  switch (part.type) {
    case 'text':
      return cut(String(part.text ?? ''), LIMITS.text);
    case 'tool-call':
      return `(calls tool ${String(part.toolName)} with ${cut(json(part.input), LIMITS.toolArgs)})`;
    case 'tool-result':
      return `(tool ${String(part.toolName)} returned: ${cut(outputText(part.output), LIMITS.toolResult)})`;
    case 'image':
    case 'file':
      return `(attached ${typeof part.filename === 'string' ? part.filename : 'a file'})`;
    default:
      // Reasoning of earlier turns and provider-specific parts: the judge reads what was said and done.
      return '';
  }
}

function outputText(output: unknown): string {
  if (typeof output !== 'object' || output === null) return json(output);
  const { type, value } = output as { type?: string; value?: unknown };
  if (type === 'content' && Array.isArray(value)) {
    return value.map((item: Part) => (item.type === 'text' ? String(item.text) : '(file)')).join(' ');
  }
  const text = typeof value === 'string' ? value : json(value);
  return type?.startsWith('error') ? `error: ${text}` : text;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… [${text.length - max} more characters]` : text;
}
