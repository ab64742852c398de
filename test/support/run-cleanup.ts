import { isTerminalEventType } from '../../src/domain/run-events.ts';
import { describeFrames, openSse, readToEnd } from './sse-client.ts';
import type { TestServer } from './test-server.ts';

/** A run a test started, and how to reach it: its service, workspace path and the credential that created it. */
export interface StartedRun {
  server: TestServer;
  ws: string;
  runId: string;
  headers: Record<string, string>;
}

/**
 * Ends a run a test may have left going, so that it takes nothing (a scripted reply, a worker slot)
 * from the next test: asks to cancel it, answers the client tool calls it waits on (a cancelled
 * run answered makes no further model turn), and reads its stream to the terminal event.
 */
export async function endRun({ server, ws, runId, headers }: StartedRun): Promise<void> {
  const path = `${ws}/agent-runs/${runId}`;
  const snapshot = await server.request('GET', path, { headers });
  if (snapshot.status !== 200 || snapshot.body.endedAt !== null) return;
  await server.request('POST', `${path}/cancel`, { headers });
  const url = `${server.baseUrl}${path}/stream`;
  const answered = new Set<string>();
  const frames = await readToEnd(await openSse(url, headers), url, {
    onFrame: async (frame) => {
      const toolUseId = frame.data.data.toolUseId;
      if (frame.data.type !== 'local_tool_call' || answered.has(toolUseId)) return;
      answered.add(toolUseId);
      await server.request('POST', `${path}/tool-results`, {
        headers,
        body: { toolUseId, result: 'ended by the test cleanup' },
      });
    },
  });
  if (!isTerminalEventType(frames.at(-1)?.data.type ?? ''))
    throw new Error(`run ${runId} closed its stream without a terminal event; got ${describeFrames(frames)}`);
}

/**
 * What one test leaves on a service: the runs it started and the streams it opened. `cleanUp()`
 * closes the streams and ends the runs, so that a test that failed half-way leaves nothing behind.
 */
export class TestLeftovers {
  readonly #runs = new Map<string, StartedRun>();
  readonly #streams = new Set<{ close(): void }>();

  trackRun(run: StartedRun): void {
    this.#runs.set(run.runId, run);
  }

  trackStream<T extends { close(): void }>(stream: T): T {
    this.#streams.add(stream);
    return stream;
  }

  async cleanUp(): Promise<void> {
    for (const stream of this.#streams) stream.close();
    this.#streams.clear();
    const runs = [...this.#runs.values()];
    this.#runs.clear();
    const failed = (await Promise.allSettled(runs.map(endRun))).flatMap((outcome) =>
      outcome.status === 'rejected' ? [outcome.reason] : [],
    );
    if (failed.length > 0) throw new Error(`runs left going did not end:\n${failed.map(String).join('\n')}`);
  }
}
