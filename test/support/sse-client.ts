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
  /** Frames as they arrive. */
  frames: AsyncGenerator<SseFrame>;
  /** Comment lines (heartbeats) seen so far. */
  comments: string[];
  close(): void;
}

/** Opens a run's SSE stream like a client: fetch, then parse frames from the body as they arrive. */
export async function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const comments: string[] = [];
  async function* frames(): AsyncGenerator<SseFrame> {
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let boundary = buffer.indexOf('\n\n');
        while (boundary !== -1) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const frame = parseBlock(block, comments);
          if (frame) yield frame;
          boundary = buffer.indexOf('\n\n');
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    }
  }
  return {
    status: response.status,
    headers: response.headers,
    frames: frames(),
    comments,
    close: () => controller.abort(),
  };
}

function parseBlock(block: string, comments: string[]): SseFrame | undefined {
  let id: string | undefined;
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) comments.push(line);
    else if (line.startsWith('id: ')) id = line.slice(4);
    else if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  if (data.length === 0) return undefined;
  return { id, event, data: JSON.parse(data.join('\n')), raw: block };
}

/** Reads a stream to its end (the server closes it after the terminal event). */
export async function readAll(url: string, headers: Record<string, string>): Promise<SseFrame[]> {
  const stream = await openSse(url, headers);
  if (stream.status !== 200) throw new Error(`stream answered ${stream.status}`);
  const frames: SseFrame[] = [];
  for await (const frame of stream.frames) frames.push(frame);
  return frames;
}
