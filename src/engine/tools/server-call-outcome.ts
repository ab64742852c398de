import type { StoredFileMetadata } from '../../domain/run-events.ts';
import type { ServerCallOutcome, StoredFileContent } from '../ports.ts';
import type { ToolOutput } from '../loop/run-control.ts';

/** How much of a server-resolved call's result the stream shows; the model gets all of it. */
export const RESULT_SUMMARY_CHARS = 2000;

/** What the model gets when a call's worker stopped before its outcome was recorded. */
export const INTERRUPTED_OUTCOME: ServerCallOutcome = {
  ok: false,
  text: 'this call was interrupted (the worker executing it stopped) and its outcome is unknown; it was not run again. Check whether it took effect before calling it again.',
  files: [],
};

export function cancelledOutcome(): ServerCallOutcome {
  return { ok: false, text: 'the run was cancelled while this call was running', files: [] };
}

/** The stream's view of a result: its start, with a note of how much was cut. */
export function displaySummary(text: string): string {
  if (text.length <= RESULT_SUMMARY_CHARS) return text;
  return `${text.slice(0, RESULT_SUMMARY_CHARS)}… (${text.length - RESULT_SUMMARY_CHARS} more characters went to the model)`;
}

/**
 * What the model receives: the text, with the files the service holds as native file parts and
 * the ones it only names (public URLs) listed in the text; an error outcome is a tool error.
 */
export function modelOutputOf(
  outcome: ServerCallOutcome,
  contents: ReadonlyMap<string, StoredFileContent>,
): ToolOutput {
  if (!outcome.ok) return { type: 'error-text', value: outcome.text };
  const linked = outcome.files.filter((file) => file.url !== undefined);
  const text =
    linked.length === 0
      ? outcome.text
      : [outcome.text, ...linked.map((file) => `file ${file.filename} (${file.mimeType}): ${file.url}`)]
          .filter((part) => part !== '')
          .join('\n');
  const held = outcome.files.flatMap((file) => {
    const content = file.storageKey === undefined ? undefined : contents.get(file.storageKey);
    return content ? [{ file, content }] : [];
  });
  if (held.length === 0) return { type: 'text', value: text };
  return {
    type: 'content',
    value: [
      { type: 'text', text },
      ...held.map(({ file, content }) => ({
        type: 'file' as const,
        data: { type: 'data' as const, data: Buffer.from(content.data).toString('base64') },
        mediaType: file.mimeType,
        filename: file.filename,
      })),
    ],
  };
}

export function storedFileKeys(files: readonly StoredFileMetadata[]): string[] {
  return files.flatMap((file) => (file.storageKey === undefined ? [] : [file.storageKey]));
}
