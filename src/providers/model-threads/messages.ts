import type { FilePart, ModelMessage, UserModelMessage } from 'ai';
import type { CompletedTurn, ModelCall, ProviderFailure } from '../../engine/ports.ts';

/** From the event loop's thread to a model thread. */
export type ToModelThread = { kind: 'call'; id: number; call: ModelCall } | { kind: 'abort'; id: number };

/** From a model thread, posted in batches (one per turn of the model thread's event loop). */
export type FromModelThread =
  | { kind: 'text' | 'thinking'; id: number; text: string }
  | { kind: 'done'; id: number; turn: CompletedTurn }
  | { kind: 'failed'; id: number; failure: ProviderFailure; partialText: string; emittedOutput: boolean }
  /** The call threw something other than a provider failure (a bug, or a result that cannot cross threads). */
  | { kind: 'crashed'; id: number; message: string }
  | { kind: 'warnings'; provider: string | undefined; model: string | undefined; warnings: unknown };

/** A URL file part's address on the wire: `URL` objects cannot be cloned to another thread. */
interface UrlData {
  url: string;
}

/** The call as it crosses to a model thread: URL file parts travel as `{ url }`. */
export function encodeCall(call: ModelCall): ModelCall {
  return mapFileData(call, (data) => (data instanceof URL ? ({ url: data.href } satisfies UrlData) : data));
}

/** The call as the model thread runs it: `{ url }` file parts become URLs again. */
export function decodeCall(call: ModelCall): ModelCall {
  return mapFileData(call, (data) => (isUrlData(data) ? new URL(data.url) : data));
}

/** File data is a string, bytes or a URL: none of them has a string `url` property. */
function isUrlData(data: unknown): data is UrlData {
  return typeof data === 'object' && data !== null && typeof (data as Partial<UrlData>).url === 'string';
}

/** Only the last user turn carries attachments, so calls without file parts are returned as they are. */
function mapFileData(call: ModelCall, map: (data: unknown) => unknown): ModelCall {
  if (!call.messages.some(hasFilePart)) return call;
  const messages = call.messages.map((message): ModelMessage => {
    if (!hasFilePart(message)) return message;
    const content: UserParts = message.content.map((part) =>
      part.type === 'file' ? ({ ...part, data: map(part.data) } as FilePart) : part,
    );
    return { ...message, content };
  });
  return { ...call, messages };
}

type UserParts = Exclude<UserModelMessage['content'], string>;

function hasFilePart(message: ModelMessage): message is UserModelMessage & { content: UserParts } {
  return (
    message.role === 'user' &&
    Array.isArray(message.content) &&
    message.content.some((part) => part.type === 'file')
  );
}
