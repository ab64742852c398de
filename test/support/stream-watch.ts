import { setTimeout as sleep } from 'node:timers/promises';
import { openSse, type SseFrame } from './sse-client.ts';

/** A run's SSE stream read in the background, so a test can wait for events and act while the run goes on. */
export interface RunWatch {
  runId: string;
  /** Frames received so far (live array). */
  frames: SseFrame[];
  /** The first frame (in arrival order) matching, waiting for it up to `timeoutMs`. */
  waitFor(predicate: (frame: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame>;
  waitForType(type: string, timeoutMs?: number): Promise<SseFrame>;
  /** Resolves with every frame once the server closes the stream. */
  ended: Promise<SseFrame[]>;
  close(): void;
}

export async function watchStream(
  url: string,
  headers: Record<string, string>,
  runId: string,
): Promise<RunWatch> {
  const stream = await openSse(url, headers);
  if (stream.status !== 200) throw new Error(`stream answered ${stream.status}`);
  const frames: SseFrame[] = [];
  let done = false;
  const ended = (async () => {
    try {
      for await (const frame of stream.frames) frames.push(frame);
      return frames;
    } finally {
      done = true;
    }
  })();
  ended.catch(() => {});
  const waitFor: RunWatch['waitFor'] = async (predicate, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = frames.find(predicate);
      if (found) return found;
      if (done)
        throw new Error(
          `stream ended without the awaited frame; got ${frames.map((f) => f.data.type).join(',')}`,
        );
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for a frame; got ${frames.map((f) => f.data.type).join(',')}`);
      }
      await sleep(10);
    }
  };
  return {
    runId,
    frames,
    waitFor,
    waitForType: (type, timeoutMs) => waitFor((frame) => frame.data.type === type, timeoutMs),
    ended,
    close: () => stream.close(),
  };
}
