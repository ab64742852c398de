/**
 * The fake OpenAI Chat Completions provider in its own process, so neither the
 * service nor the load generator pays for it. Every streamed reply: the first
 * chunk after FIRST_CHUNK_MS, then the rest CHUNK_INTERVAL_MS apart.
 * It stamps when each request was received (by the `brun-<id>` marker the
 * bench puts in the prompt), so the harness can split latency into "before the
 * provider call" and "after it".
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

const fake = await startFakeOpenAIChat([script]);
const received = new Map<string, number>();
const MARKER = /brun-([0-9a-z-]+)/;

// The fake appends each request to its live `requests` array right after reading the body: stamp it there.
const record = fake.requests.push.bind(fake.requests);
fake.requests.push = (...requests: RecordedRequest[]) => {
  const at = wallNow();
  for (const request of requests) {
    const marker = MARKER.exec(request.rawBody)?.[1];
    if (marker !== undefined) received.set(marker, at);
  }
  return record(...requests);
};

serveParent(
  {
    type: 'ready',
    url: fake.url,
    info: { firstChunkDelayMs: FIRST_CHUNK_MS, chunkIntervalMs: CHUNK_INTERVAL_MS, textChunks: TEXT_CHUNKS },
  },
  {
    /** Request-received stamps since the last call (marker → wall ms), then forgets them. */
    timings: () => {
      const result = Object.fromEntries(received);
      received.clear();
      return result;
    },
    /** Drops the recorded requests (they hold every body) and re-arms the script. */
    reset: () => {
      fake.reset();
      fake.enqueue(script);
      received.clear();
      return null;
    },
  },
  () => fake.close(),
);
