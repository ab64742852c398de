import { randomUUID } from 'node:crypto';
import { Role, type Message, type Part, type TaskState, type TaskStatus } from '@a2a-js/sdk';
import { LegacyA2AError } from '@a2a-js/sdk/compat/v0_3/server';
import type { UsageTriple } from '../../../domain/run-events.ts';
import { CONTENT_MAX_CHARS } from '../../schemas/limits.ts';
import { JSON_RPC_CODES } from './json-rpc-errors.ts';

/**
 * The text of a peer's message: its text parts, joined by newlines. Other parts (files, data) are
 * refused: the card declares text/plain only.
 */
export function messageText(message: Message): string {
  const texts: string[] = [];
  for (const part of message.parts) {
    if (part.content?.$case !== 'text') {
      throw new LegacyA2AError(
        JSON_RPC_CODES.contentTypeNotSupported,
        'only text parts are accepted (the agent takes text/plain)',
        { error: 'invalid_request' },
      );
    }
    texts.push(part.content.value);
  }
  const text = texts.join('\n');
  if (text.trim() === '') {
    throw new LegacyA2AError(JSON_RPC_CODES.invalidParams, 'the message has no text', {
      error: 'invalid_request',
    });
  }
  if (text.length > CONTENT_MAX_CHARS) {
    throw new LegacyA2AError(
      JSON_RPC_CODES.invalidParams,
      `the message's text exceeds ${CONTENT_MAX_CHARS} characters`,
      { error: 'invalid_request' },
    );
  }
  return text;
}

export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  };
}

/** A message of the agent; an empty `taskId` is left out of the v0.3 shape. */
export function agentMessage(
  text: string,
  contextId: string,
  taskId: string,
  metadata: Record<string, unknown> | undefined,
): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/**
 * `metadata.svc`: the usage triple of the run's terminal event, left out entirely (not zeroed) when
 * the run has no usage data (an empty `model.provider`), as the spec says.
 */
export function usageMetadata(ended: UsageTriple): Record<string, unknown> | undefined {
  if (!ended.model?.provider) return undefined;
  return { svc: { tokens: ended.tokens, turns: ended.turns, model: ended.model } };
}

export function taskStatus(state: TaskState, message?: Message): TaskStatus {
  return { state, message, timestamp: new Date().toISOString() };
}
