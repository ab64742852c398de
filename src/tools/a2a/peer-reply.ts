import { TaskState, type Part, type SendMessageResult, type Task } from '@a2a-js/sdk';
import type { ServerToolOutcome } from '../../engine/ports.ts';

/**
 * What the model reads of a peer's answer: a Message's text, or a Task's
 * artifacts text (its status message when it has none). A task the peer failed,
 * rejected, canceled or cannot continue without credentials is a tool error;
 * one waiting for input is a result that says so.
 */
export function replyOutcome(peer: string, result: SendMessageResult): ServerToolOutcome {
  if ('messageId' in result) return { ok: true, text: textOf(result.parts) || noText(peer) };
  return taskOutcome(peer, result);
}

function taskOutcome(peer: string, task: Task): ServerToolOutcome {
  const artifacts = task.artifacts
    .map((artifact) => textOf(artifact.parts))
    .filter((text) => text !== '')
    .join('\n\n');
  const status = textOf(task.status?.message?.parts ?? []);
  const result = artifacts || status;
  const reason = status || artifacts;
  switch (task.status?.state) {
    case TaskState.TASK_STATE_COMPLETED:
      return { ok: true, text: result || noText(peer) };
    case TaskState.TASK_STATE_FAILED:
      return { ok: false, text: `A2A peer ${peer} failed the task${detail(reason)}` };
    case TaskState.TASK_STATE_REJECTED:
      return { ok: false, text: `A2A peer ${peer} rejected the task${detail(reason)}` };
    case TaskState.TASK_STATE_CANCELED:
      return { ok: false, text: `A2A peer ${peer} canceled the task${detail(reason)}` };
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return {
        ok: false,
        text: `A2A peer ${peer} needs authentication to continue the task${detail(reason)}`,
      };
    case TaskState.TASK_STATE_INPUT_REQUIRED:
      return { ok: true, text: withNote(reason, `A2A peer ${peer} needs more input to continue the task.`) };
    default:
      // A peer may answer a blocking send before the task ends (submitted, working).
      return { ok: true, text: withNote(result, `A2A peer ${peer} has not finished the task yet.`) };
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
