import type { FilePart, ModelMessage, TextPart, ToolModelMessage, ToolResultPart } from 'ai';

type ContentItem = Extract<ToolResultPart['output'], { type: 'content' }>['value'][number];
type FileItem = Extract<ContentItem, { type: 'file' }>;

/**
 * OpenAI Chat Completions takes only text in a tool message, so the SDK would send a tool
 * result's files as base64 text inside it. Before such a call the files move, as native file
 * parts, into a user message right after that round's tool messages (which must stay together
 * after their assistant message); each tool result keeps its text and a note naming its files.
 */
export function toolFilesAsUserMessages(messages: ModelMessage[]): ModelMessage[] {
  if (!messages.some(carriesToolFiles)) return messages;
  return messages.flatMap((message): ModelMessage[] => {
    if (!carriesToolFiles(message)) return [message];
    const attached: Array<TextPart | FilePart> = [];
    const content = message.content.map((part) => {
      if (part.type !== 'tool-result' || part.output.type !== 'content') return part;
      const files = part.output.value.filter(isFile);
      if (files.length === 0) return part;
      const names = files.map((file) => `${file.filename ?? 'file'} (${file.mediaType})`).join(', ');
      attached.push(
        { type: 'text', text: `Files returned by ${part.toolName} (${part.toolCallId}): ${names}` },
        ...files.map((file): FilePart => ({
          type: 'file',
          data: file.data,
          mediaType: file.mediaType,
          ...(file.filename !== undefined && { filename: file.filename }),
        })),
      );
      const note = `[${files.length === 1 ? 'file' : 'files'} ${names} attached in the next message]`;
      const rest = part.output.value.filter((item) => !isFile(item));
      const output: ToolResultPart['output'] = rest.every((item) => item.type === 'text')
        ? {
            type: 'text',
            value: [...rest.map((item) => item.text), note].filter((text) => text !== '').join('\n'),
          }
        : { type: 'content', value: [...rest, { type: 'text', text: note }] };
      return { ...part, output };
    });
    return [
      { ...message, content },
      { role: 'user', content: attached },
    ];
  });
}

const isFile = (item: ContentItem): item is FileItem => item.type === 'file';

function carriesToolFiles(message: ModelMessage): message is ToolModelMessage {
  return (
    message.role === 'tool' &&
    message.content.some(
      (part) =>
        part.type === 'tool-result' && part.output.type === 'content' && part.output.value.some(isFile),
    )
  );
}
