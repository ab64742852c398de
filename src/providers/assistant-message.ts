import type { AssistantModelMessage, ContentPart, ToolSet } from 'ai';

type AssistantPart = Exclude<AssistantModelMessage['content'], string>[number];

/**
 * The assistant message of one model call, from the content the SDK collected:
 * text, reasoning (with its provider metadata: Anthropic's thinking signatures
 * must go back on the next turn), files and tool calls, in the order produced.
 * Tool results are ours to give, so none are included.
 */
export function assistantMessageOf(content: ReadonlyArray<ContentPart<ToolSet>>): AssistantModelMessage[] {
  const parts: AssistantPart[] = [];
  for (const part of content) {
    const providerOptions =
      'providerMetadata' in part && part.providerMetadata ? { providerOptions: part.providerMetadata } : {};
    switch (part.type) {
      case 'text':
        if (part.text.length > 0 || part.providerMetadata != null)
          parts.push({ type: 'text', text: part.text, ...providerOptions });
        break;
      case 'reasoning':
        parts.push({ type: 'reasoning', text: part.text, ...providerOptions });
        break;
      case 'custom':
        parts.push({ type: 'custom', kind: part.kind, ...providerOptions });
        break;
      case 'file':
        parts.push({
          type: 'file',
          data: part.file.base64,
          mediaType: part.file.mediaType,
          ...providerOptions,
        });
        break;
      case 'tool-call':
        parts.push({
          type: 'tool-call',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: part.invalid && typeof part.input !== 'object' ? {} : part.input,
          ...(part.providerExecuted !== undefined && { providerExecuted: part.providerExecuted }),
          ...providerOptions,
        });
        break;
      default:
        break;
    }
  }
  return parts.length > 0 ? [{ role: 'assistant', content: parts }] : [];
}
