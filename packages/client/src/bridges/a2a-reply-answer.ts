import { TaskState, type Part, type SendMessageResult, type Task } from '@a2a-js/sdk';
import { answerOfValue, capUtf8, ERROR_MAX_BYTES, type ToolAnswer } from '../tools/tool-answer.ts';

/**
 * The answer for a peer's reply to `message/send`: a Message's text parts joined; for a Task, its
 * artifacts' text (else its status message). A task the peer failed, rejected, canceled or
 * cannot continue without authentication is an error answer; one still running or waiting for
 * input is a result that says so.
 */
export function a2aReplyAnswer(peer: string, reply: SendMessageResult): ToolAnswer {
  if ('messageId' in reply) return answerOfValue(textOf(reply.parts) || noText(peer));
  return taskAnswer(peer, reply);
}

function taskAnswer(peer: string, task: Task): ToolAnswer {
  const artifacts = task.artifacts
    .map((artifact) => textOf(artifact.parts))
    .filter((text) => text !== '')
    .join('\n\n');
  const status = textOf(task.status?.message?.parts ?? []);
  const result = artifacts || status;
  const reason = status || artifacts;
  const failure = (what: string) => ({
    error: capUtf8(`A2A peer ${peer} ${what}${detail(reason)}`, ERROR_MAX_BYTES),
  });
  switch (task.status?.state) {
    case TaskState.TASK_STATE_COMPLETED:
      return answerOfValue(result || noText(peer));
    case TaskState.TASK_STATE_FAILED:
      return failure('failed the task');
    case TaskState.TASK_STATE_REJECTED:
      return failure('rejected the task');
    case TaskState.TASK_STATE_CANCELED:
      return failure('canceled the task');
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return failure('needs authentication to continue the task');
    case TaskState.TASK_STATE_INPUT_REQUIRED:
      return answerOfValue(withNote(reason, `A2A peer ${peer} needs more input to continue the task.`));
    default:
      return answerOfValue(withNote(result, `A2A peer ${peer} has not finished the task yet.`));
  }
}

function textOf(parts: readonly Part[]): string {
  return parts.flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])).join('\n');
}

function noText(peer: string): string {
  return `A2A peer ${peer} answered without text.`;
}

function detail(text: string): string {
  return text === '' ? '.' : `: ${text}`;
}

function withNote(text: string, note: string): string {
  return text === '' ? note : `${text}\n\n(${note})`;
}
