import type { RecordedRequest } from '../fakes/scripted-reply.ts';
import type { FakeApi } from './run-fixture.ts';

/**
 * What a fake provider was sent, read the same on the OpenAI Chat and Anthropic Messages wires:
 * the tool choice, the tool results and the user texts of a recorded request.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider wire JSON
type Wire = Record<string, any>;

function bodyOf(request: RecordedRequest | undefined): Wire {
  if (!request) throw new Error('no such provider request');
  return request.body as Wire;
}

function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Wire[])
    .filter((part) => part.type === 'text')
    .map((part) => String(part.text))
    .join('');
}

/** `auto`, `none`, … as the request asked (`undefined` when it sent no tool choice). */
export function toolChoiceOf(api: FakeApi, request: RecordedRequest | undefined): string | undefined {
  const choice: unknown = bodyOf(request).tool_choice;
  if (api === 'anthropic-messages') return (choice as Wire | undefined)?.type;
  return typeof choice === 'string' ? choice : (choice as Wire | undefined)?.type;
}

/** Each tool result the request carries, by call id, as text. */
export function toolResultsOf(api: FakeApi, request: RecordedRequest | undefined): Map<string, string> {
  const messages = bodyOf(request).messages as Wire[];
  if (api === 'anthropic-messages') {
    return new Map(
      messages
        .flatMap((message) => (Array.isArray(message.content) ? (message.content as Wire[]) : []))
        .filter((block) => block.type === 'tool_result')
        .map((block) => [String(block.tool_use_id), partsText(block.content)]),
    );
  }
  return new Map(
    messages
      .filter((message) => message.role === 'tool')
      .map((message) => [String(message.tool_call_id), partsText(message.content)]),
  );
}

/** The text of every user message of the request (tool results left out), in order. */
export function userTextsOf(request: RecordedRequest | undefined): string[] {
  return (bodyOf(request).messages as Wire[])
    .filter((message) => message.role === 'user')
    .map((message) => partsText(message.content))
    .filter((text) => text !== '');
}
