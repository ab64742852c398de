/**
 * The fake OpenAI Chat Completions provider in its own process, so neither the
 * service nor the load generator pays for it. Every streamed reply: the first
 * chunk after FIRST_CHUNK_MS, then the rest CHUNK_INTERVAL_MS apart.
 * It stamps when each request was received (by the `brun-<id>` marker the
 * bench puts in the prompt), so the harness can split latency into "before the
 * provider call" and "after it", and counts the requests it is answering at
 * once (to show that nothing between the service and the provider caps them).
 *
 * A second fake (`holdUrl`) sends the first chunk of its reply, then holds the
 * rest until the parent says `release`: the runs of the idle-subscriber
 * measurement wait on it with one event in their log and nothing flowing.
 */
import { startFakeOpenAIChat } from '../test/fakes/fake-openai-chat.ts';
import type { RecordedRequest, ScriptedTurn } from '../test/fakes/scripted-reply.ts';
import { serveParent } from './ipc.ts';
import { wallNow } from './stats.ts';

const FIRST_CHUNK_MS = 200;
const CHUNK_INTERVAL_MS = 5;
const TEXT_CHUNKS = 50;

const script: ScriptedTurn = {
  text: Array.from({ length: TEXT_CHUNKS }, (_, index) => (index === 0 ? 'tok0' : ` tok${index}`)),
  firstChunkDelayMs: FIRST_CHUNK_MS,
  chunkIntervalMs: CHUNK_INTERVAL_MS,
  usage: { inputTokens: 20, outputTokens: TEXT_CHUNKS },
};

/** Held until `release` (the fake's reset lets held replies go on) after its first chunk. */
const heldScript: ScriptedTurn = {
  text: ['held', ' then', ' released'],
  holdUntil: new Promise<never>(() => {}),
  holdAfterChunks: 1,
  usage: { inputTokens: 20, outputTokens: 3 },
};

const fake = await startFakeOpenAIChat([script]);
const hold = await startFakeOpenAIChat([heldScript]);
const received = new Map<string, number>();
const MARKER = /brun-([0-9a-z-]+)/;
let inFlight = 0;
let peakInFlight = 0;

// The fake appends each request to its live `requests` array right after reading the body, and
// sets its `respondedAt` when the reply's connection closes: stamp and count there.
const record = fake.requests.push.bind(fake.requests);
fake.requests.push = (...requests: RecordedRequest[]) => {
  const at = wallNow();
  for (const request of requests) {
    const marker = MARKER.exec(request.rawBody)?.[1];
    if (marker !== undefined) received.set(marker, at);
    countUntilResponded(request);
  }
  return record(...requests);
};

function countUntilResponded(request: RecordedRequest): void {
  inFlight++;
  peakInFlight = Math.max(peakInFlight, inFlight);
  let respondedAt: number | undefined;
  Object.defineProperty(request, 'respondedAt', {
    enumerable: true,
    get: () => respondedAt,
    set: (value: number | undefined) => {
      if (respondedAt === undefined && value !== undefined) inFlight--;
      respondedAt = value;
    },
  });
}

serveParent(
  {
    type: 'ready',
    url: fake.url,
    info: {
      firstChunkDelayMs: FIRST_CHUNK_MS,
      chunkIntervalMs: CHUNK_INTERVAL_MS,
      textChunks: TEXT_CHUNKS,
      holdUrl: hold.url,
    },
  },
  {
    /** Request-received stamps since the last call (marker → wall ms), then forgets them. */
    timings: () => {
      const result = Object.fromEntries(received);
      received.clear();
      return result;
    },
    /** The most requests answered at once since the last call (then starts again from those now open). */
    peaks: () => {
      const peak = peakInFlight;
      peakInFlight = inFlight;
      return peak;
    },
    /** Drops the recorded requests (they hold every body) and re-arms the script. */
    reset: () => {
      fake.reset();
      fake.enqueue(script);
      received.clear();
      return null;
    },
    /** Lets the held replies go on to their end (and holds the next ones again); returns how many were held. */
    release: () => {
      const held = hold.requests.filter((request) => request.respondedAt === undefined).length;
      hold.reset();
      hold.enqueue(heldScript);
      return held;
    },
  },
  async () => {
    await hold.close();
    await fake.close();
  },
);
