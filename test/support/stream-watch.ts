import { describeFrames, openSse, type SseFrame } from './sse-client.ts';
import { WAIT_CAP_MS, withCap } from './waits.ts';

/** A run's SSE stream read in the background, so a test can wait for events and act while the run goes on. */
export interface RunWatch {
  runId: string;
  /** Frames received so far (live array). */
  frames: SseFrame[];
  /**
   * The first frame (in arrival order) matching, as soon as it arrives; fails when the stream ends
   * without one, or after `timeoutMs`. `what` names the frame in that failure (default: the predicate's text).
   */
  waitFor(predicate: (frame: SseFrame) => boolean, what?: string, timeoutMs?: number): Promise<SseFrame>;
  waitForType(type: string, timeoutMs?: number): Promise<SseFrame>;
  /** Resolves with every frame once the server closes the stream (fails if it is still open after the wait cap). */
  readonly ended: Promise<SseFrame[]>;
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
  /** Called on every frame and at the end of the stream. */
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  const streamEnd = (async () => {
    try {
      for await (const frame of stream.frames) {
        frames.push(frame);
        notify();
      }
      return frames;
    } finally {
      done = true;
      notify();
    }
  })();
  streamEnd.catch(() => {});

  const waitFor: RunWatch['waitFor'] = (predicate, what = `a frame matching ${predicate}`, timeoutMs) => {
    const cap = timeoutMs ?? WAIT_CAP_MS;
    let checked = 0;
    let listener = () => {};
    const found = new Promise<SseFrame>((resolve, reject) => {
      listener = () => {
        try {
          for (; checked < frames.length; checked++) {
            const frame = frames[checked]!;
            if (predicate(frame)) return resolve(frame);
          }
        } catch (error) {
          return reject(error);
        }
        if (done)
          reject(new Error(`run ${runId}: the stream ended without ${what}; got ${describeFrames(frames)}`));
      };
      listeners.add(listener);
      listener();
    });
    return withCap(
      found,
      cap,
      () => `run ${runId}: timed out after ${cap} ms waiting for ${what}; got ${describeFrames(frames)}`,
    ).finally(() => listeners.delete(listener));
  };

  let endedWithCap: Promise<SseFrame[]> | undefined;
  return {
    runId,
    frames,
    waitFor,
    waitForType: (type, timeoutMs) =>
      waitFor((frame) => frame.data.type === type, `a ${type} frame`, timeoutMs),
    // The cap counts from the first await of `ended`, not from the opening of the stream.
    get ended() {
      endedWithCap ??= withCap(
        streamEnd,
        WAIT_CAP_MS,
        () =>
          `run ${runId}: the stream was still open ${WAIT_CAP_MS} ms later; got ${describeFrames(frames)}`,
      );
      return endedWithCap;
    },
    close: () => stream.close(),
  };
}
