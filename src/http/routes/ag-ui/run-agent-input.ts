import type { Message, RunAgentInput, Tool } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { InvalidRequestError } from '../../../domain/errors.ts';
import type { LocalToolRef } from '../../../domain/tool-ref.ts';
import type { ThreadToolAnswer } from '../../../engine/lifecycle/agent-threads.ts';
import { parseInput } from '../../parse.ts';
import { declaredToolNameSchema } from '../../schemas/common.ts';
import { CONTENT_MAX_CHARS, METADATA_VALUE_MAX_CHARS } from '../../schemas/limits.ts';

/** Frontend tools one input may declare (the run's tools are capped at 128 in all). */
const FRONTEND_TOOLS_MAX = 64;
/** A tool message's content, as a tool-result post's `result` (2 MB). */
const TOOL_RESULT_MAX_BYTES = 2 * 1024 * 1024;
const TOOL_ERROR_MAX_BYTES = 8 * 1024;

/**
 * What one input asks of the thread. The session holds the conversation, so only the input's tail
 * counts: a last `user` message starts a run with its text; `tool` messages after the last
 * `assistant` message answer the frontend tool calls the thread's run waits for. Earlier messages
 * are what the front end already showed and the session already has.
 */
export type ThreadTurn =
  | { kind: 'message'; prompt: string; tools: LocalToolRef[] }
  | { kind: 'tool_results'; answers: ThreadToolAnswer[] };

/** The body as AG-UI 1.0's `RunAgentInput` schema reads it (`400 invalid_request` naming the bad fields). */
export function parseRunAgentInput(body: unknown): RunAgentInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidRequestError('body: must be an AG-UI RunAgentInput object');
  }
  return parseInput(RunAgentInputSchema, body) as RunAgentInput;
}

export function threadTurnOf(input: RunAgentInput): ThreadTurn {
  const last = input.messages.at(-1);
  if (last?.role === 'user') {
    return { kind: 'message', prompt: promptOf(last.content), tools: frontendTools(input.tools) };
  }
  const answers: ThreadToolAnswer[] = [];
  for (let index = input.messages.length - 1; index >= 0; index--) {
    const message = input.messages[index] as Message;
    if (message.role !== 'tool') break;
    answers.unshift({ toolUseId: message.toolCallId, answer: toolAnswerOf(message, index) });
  }
  if (answers.length === 0) {
    throw new InvalidRequestError(
      'messages: the last message must be a user message (a new turn) or tool messages (frontend tool results)',
    );
  }
  return { kind: 'tool_results', answers };
}

/** A user message's text (text parts joined); media parts are not taken. */
function promptOf(content: string | readonly { type: string; text?: string }[]): string {
  let text: string;
  if (typeof content === 'string') {
    text = content;
  } else {
    const media = content.find((part) => part.type !== 'text');
    if (media) {
      throw new InvalidRequestError(
        `messages: the user message's '${media.type}' part is not supported (text only)`,
      );
    }
    text = content.map((part) => part.text ?? '').join('');
  }
  if (text.trim() === '') throw new InvalidRequestError('messages: the user message is empty');
  if (text.length > CONTENT_MAX_CHARS) {
    throw new InvalidRequestError(
      `messages: the user message must be at most ${CONTENT_MAX_CHARS} characters`,
    );
  }
  return text;
}

function toolAnswerOf(
  message: Extract<Message, { role: 'tool' }>,
  index: number,
): ThreadToolAnswer['answer'] {
  const where = `messages.${index}`;
  if (message.toolCallId === '' || message.toolCallId.length > 200) {
    throw new InvalidRequestError(`${where}.toolCallId: must be 1 to 200 characters`);
  }
  if (typeof message.content !== 'string' && message.content.some((part) => part.type !== 'text')) {
    throw new InvalidRequestError(`${where}.content: only text parts are supported`);
  }
  const content =
    typeof message.content === 'string'
      ? message.content
      : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  if (message.error !== undefined) {
    if (Buffer.byteLength(message.error, 'utf8') > TOOL_ERROR_MAX_BYTES) {
      throw new InvalidRequestError(`${where}.error: must be at most 8 KB`);
    }
    return { error: message.error };
  }
  if (Buffer.byteLength(content, 'utf8') > TOOL_RESULT_MAX_BYTES) {
    throw new InvalidRequestError(`${where}.content: must be at most 2 MB`);
  }
  return { result: content, files: [] };
}

/** The input's tools as client-resolved (`local`) tools of the run: called one at a time. */
function frontendTools(tools: readonly Tool[]): LocalToolRef[] {
  if (tools.length > FRONTEND_TOOLS_MAX) {
    throw new InvalidRequestError(`tools: at most ${FRONTEND_TOOLS_MAX} frontend tools`);
  }
  return tools.map((tool, index) => {
    const checked = declaredToolNameSchema.safeParse(tool.name);
    if (!checked.success) {
      throw new InvalidRequestError(`tools.${index}.name: ${checked.error.issues[0]?.message ?? 'invalid'}`);
    }
    return {
      kind: 'local',
      name: tool.name,
      description: tool.description,
      ...(tool.parameters !== undefined && { parameters: tool.parameters as unknown }),
    };
  });
}

/** The input's run id, kept in the run's metadata when metadata can hold it. */
export function inputRunMetadata(input: RunAgentInput): Record<string, string> {
  const runId = input.runId;
  if (runId === '' || runId.length > METADATA_VALUE_MAX_CHARS || runId.includes('\u0000')) return {};
  return { 'ag-ui.runId': runId };
}
