import { SseSplitter } from './sse-splitter.ts';
import { WAIT_CAP_MS, withCap } from './waits.ts';

/** One SSE frame as a client sees it: the `id` and `event` lines and the parsed `data` JSON. */
export interface SseFrame {
  id: string | undefined;
  event: string | undefined;
  data: { seq: number; type: string; data: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- arbitrary event payloads
  raw: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** Frames as they arrive; the connection is closed once the consumer stops reading them. */
  frames: AsyncGenerator<SseFrame>;
  /** Comment lines (heartbeats) seen so far. */
  comments: string[];
  /** Resolves once `count` comments were seen (they are parsed while someone reads `frames`). */
  waitForComments(count: number, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** The types of frames, for messages saying what a wait got. */
export const describeFrames = (frames: readonly SseFrame[]): string =>
  frames.length === 0 ? 'no frame' : frames.map((frame) => frame.data.type).join(',');

/** Opens a run's SSE stream like a client: fetch, then parse frames from the body as they arrive. */
export async function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  const controller = new AbortController();
  const noHeaders = setTimeout(() => controller.abort(), WAIT_CAP_MS);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: 'text/event-stream', ...headers },
      signal: controller.signal,
    });
  } catch (error) {
    if (controller.signal.aborted)
      throw new Error(`${url} sent no response headers within ${WAIT_CAP_MS} ms`);
    throw error;
  } finally {
    clearTimeout(noHeaders);
  }
  const comments: string[] = [];
  let ended = false;
  /** Called on every comment and at the end of the stream. */
  const commentListeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...commentListeners]) listener();
  };
  const onComment = (line: string) => {
    comments.push(line);
    notify();
  };
  async function* frames(): AsyncGenerator<SseFrame> {
    if (!response.body) return;
    const decoder = new TextDecoder();
    const complete: string[] = [];
    const splitter = new SseSplitter((block) => complete.push(block));
    try {
      for await (const chunk of response.body) {
        splitter.push(decoder.decode(chunk, { stream: true }));
        for (const block of complete.splice(0)) {
          const frame = parseBlock(block, onComment);
          if (frame) yield frame;
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      controller.abort();
      ended = true;
      notify();
    }
  }
  const waitForComments: SseStream['waitForComments'] = (count, timeoutMs = WAIT_CAP_MS) => {
    let listener = () => {};
    const seen = new Promise<void>((resolve, reject) => {
      listener = () => {
        if (comments.length >= count) resolve();
        else if (ended)
          reject(new Error(`${url}: the stream ended after ${comments.length} of ${count} comments`));
      };
      commentListeners.add(listener);
      listener();
    });
    return withCap(
      seen,
      timeoutMs,
      () => `${url}: timed out after ${timeoutMs} ms waiting for ${count} comments; saw ${comments.length}`,
    ).finally(() => commentListeners.delete(listener));
  };
  return {
    status: response.status,
    headers: response.headers,
    frames: frames(),
    comments,
    waitForComments,
    close: () => controller.abort(),
  };
}

function parseBlock(block: string, onComment: (line: string) => void): SseFrame | undefined {
  let id: string | undefined;
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) onComment(line);
    else if (line.startsWith('id: ')) id = line.slice(4);
    else if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  if (data.length === 0) return undefined;
  return { id, event, data: JSON.parse(data.join('\n')), raw: block };
}

/**
 * Reads a stream to its end (the server closes it after the terminal event); fails, naming what it
 * got, if the stream is still open after `timeoutMs`.
 */
export async function readAll(
  url: string,
  headers: Record<string, string>,
  timeoutMs = WAIT_CAP_MS,
): Promise<SseFrame[]> {
  const stream = await openSse(url, headers);
  if (stream.status !== 200) throw new Error(`stream answered ${stream.status}`);
  return readToEnd(stream, url, { timeoutMs });
}

/**
 * Reads an open stream's frames until the server closes it, handing each to `onFrame` as it comes;
 * fails if the stream is still open after `timeoutMs`.
 */
export async function readToEnd(
  stream: SseStream,
  url: string,
  { timeoutMs = WAIT_CAP_MS, onFrame }: { timeoutMs?: number; onFrame?: (frame: SseFrame) => unknown } = {},
): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stream.close();
  }, timeoutMs);
  try {
    for await (const frame of stream.frames) {
      frames.push(frame);
      await onFrame?.(frame);
    }
  } finally {
    clearTimeout(timer);
  }
  if (timedOut)
    throw new Error(`the stream ${url} did not end within ${timeoutMs} ms; got ${describeFrames(frames)}`);
  return frames;
}
