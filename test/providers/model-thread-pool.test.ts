import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import type { ModelMessage } from 'ai';
import type { ResolvedModel } from '../../src/domain/model.ts';
import { ModelThreadPool } from '../../src/providers/model-threads/model-thread-pool.ts';
import { decodeCall, encodeCall } from '../../src/providers/model-threads/messages.ts';
import { aiSdkModelPort } from '../../src/providers/ai-sdk-model-turn.ts';
import {
  ModelTurnError,
  type CompletedTurn,
  type ModelCall,
  type ModelPort,
} from '../../src/engine/ports.ts';
import { startFakeOpenAIChat } from '../fakes/fake-openai-chat.ts';
import type { FakeProviderServer, ScriptedReply } from '../fakes/scripted-reply.ts';
import { WAIT_CAP_MS, withCap } from '../support/waits.ts';

const logger = pino({ level: 'silent' });

function modelAt(baseUrl: string): ResolvedModel {
  return {
    ...{ id: 'acme/fake-model', label: 'Fake', provider: 'acme', vendorModelId: 'fake-model' },
    ...{ source: 'workspace_provider', contextWindowTokens: 128_000, pricing: null },
    ...{ api: 'openai-chat', baseUrl, apiKey: 'sk-fake-provider-key', connectionRef: 'provider:p1' },
    reasoningControl: true,
  };
}

/** The smallest call: no instructions, one user message, no tools. */
function sayHi(baseUrl: string): ModelCall {
  return {
    model: modelAt(baseUrl),
    instructions: '',
    messages: [{ role: 'user', content: 'hi' }],
    reasoningLevel: null,
  };
}

const weatherTool = {
  name: 'get_weather',
  description: 'Weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

interface Outcome {
  deltas: string[];
  turn?: CompletedTurn;
  error?: unknown;
}

async function callThrough(caller: ModelPort, call: ModelCall, signal = new AbortController().signal) {
  const outcome: Outcome = { deltas: [] };
  try {
    outcome.turn = await caller.call(call, signal, {
      onText: (text) => outcome.deltas.push(text),
      onThinking: (text) => outcome.deltas.push(`(thought) ${text}`),
    });
  } catch (error) {
    outcome.error = error;
  }
  return outcome;
}

describe('model calls on model threads', () => {
  let fake: FakeProviderServer;
  let pool: ModelThreadPool;
  let call: ModelCall;

  before(async () => {
    fake = await startFakeOpenAIChat();
    pool = new ModelThreadPool({ threads: 2, logger });
    call = {
      model: modelAt(fake.url),
      instructions: 'You are terse.',
      messages: [{ role: 'user', content: 'weather in Paris?' }],
      tools: [weatherTool],
      toolChoice: 'auto',
      reasoningLevel: null,
    };
  });
  after(async () => {
    await pool.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  /** The same reply, once through each caller: what the engine gets must not depend on the thread. */
  async function onBothThreads(reply: ScriptedReply) {
    fake.enqueue(reply, reply);
    const here = await callThrough(aiSdkModelPort, call);
    const threaded = await callThrough(pool, call);
    return { here, threaded };
  }

  it('a call streams the same deltas and completes with the same turn (tool calls, usage, response messages) as on the event loop thread', async () => {
    const { here, threaded } = await onBothThreads({
      text: ['Let me ', 'check.'],
      toolCalls: [{ id: 'call_1', name: 'get_weather', input: { city: 'Paris' } }],
      usage: { inputTokens: 40, outputTokens: 12 },
    });
    assert.equal(here.error, undefined);
    assert.deepEqual(threaded.deltas, ['Let me ', 'check.']);
    assert.deepEqual(threaded.turn?.toolCalls, [
      { id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    assert.equal(threaded.turn?.finishReason, 'tool_use');
    assert.deepEqual(threaded, here);
    // The tool definition crossed as plain data and reached the provider as a function tool.
    const body = fake.requests[1]?.body as { tools?: Array<{ function: { name: string } }> };
    assert.deepEqual(
      body.tools?.map((tool) => tool.function.name),
      ['get_weather'],
    );
  });

  it('a provider failure crosses as a ModelTurnError with the same classification (errorClass, status, Retry-After)', async () => {
    const { here, threaded } = await onBothThreads({
      type: 'http-error',
      status: 429,
      message: 'slow down',
      headers: { 'retry-after': '2' },
    });
    assert.ok(threaded.error instanceof ModelTurnError);
    assert.equal(threaded.error.failure.errorClass, 'rate_limit');
    assert.equal(threaded.error.failure.apiStatus, 429);
    assert.equal(threaded.error.failure.retryAfterMs, 2000);
    assert.equal(threaded.error.emittedOutput, false);
    assert.ok(here.error instanceof ModelTurnError);
    assert.deepEqual(threaded.error.failure, here.error.failure);
  });

  it('abort: the call rejects with the abort reason at once and the provider connection is closed', async () => {
    // The provider never answers: the call can only end by its abort.
    fake.enqueue({ type: 'hang' });
    const controller = new AbortController();
    const pending = callThrough(pool, call, controller.signal);
    await fake.waitForRequests(1);
    const reason = new Error('cancelled by the client');
    controller.abort(reason);
    const outcome = await withCap(pending, WAIT_CAP_MS, () => 'the aborted call did not reject');
    assert.equal(outcome.error, reason);
    await fake.waitUntil(() => fake.requests[0]?.closedByClient === true, 'the provider request was closed');
    assert.equal(fake.requests[0]?.closedByClient, true, 'the model thread stopped the provider request');
  });

  it('a call whose signal is already aborted never reaches the provider', async () => {
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    const outcome = await callThrough(pool, call, controller.signal);
    assert.equal((outcome.error as Error).message, 'too late');
    await sleep(50); // a negative check: a slower machine only makes it pass more easily
    assert.equal(fake.requests.length, 0);
  });

  it('a URL attachment reaches the provider as that URL (URL objects are carried across threads)', async () => {
    fake.enqueue({ text: ['a cat'] });
    const messages: ModelMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'file', data: new URL('https://127.0.0.1:9/cat.png'), mediaType: 'image/png' },
        ],
      },
    ];
    const outcome = await callThrough(pool, { ...call, messages });
    assert.equal(outcome.error, undefined);
    assert.match(fake.requests[0]?.rawBody ?? '', /"url":"https:\/\/127\.0\.0\.1:9\/cat\.png"/);
  });

  it('encodeCall/decodeCall: URL file parts survive a structured clone; inline bytes and other parts are untouched', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const messages: ModelMessage[] = [
      { role: 'user', content: 'older turn' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'file', data: new URL('https://127.0.0.1:9/a.pdf'), mediaType: 'application/pdf' },
          { type: 'file', data: bytes, mediaType: 'image/png' },
        ],
      },
    ];
    const decoded = decodeCall(structuredClone(encodeCall({ ...call, messages })));
    const parts = decoded.messages[1]?.content as Array<{ type: string; data?: unknown }>;
    assert.ok(parts[1]?.data instanceof URL);
    assert.equal(parts[1].data.href, 'https://127.0.0.1:9/a.pdf');
    assert.deepEqual(parts[2]?.data, bytes);
    assert.deepEqual(decoded.messages[0], messages[0]);
    // A call without file parts is passed as it is.
    assert.equal(encodeCall(call), call);
  });

  it('a call that cannot be sent to a thread (a value that cannot be cloned) fails alone; the next call works', async () => {
    const unsendable = { ...call, providerOptions: { acme: { format: () => 'json' } } };
    const failed = await callThrough(pool, unsendable);
    assert.ok(failed.error instanceof Error);
    assert.equal(failed.error.name, 'DataCloneError');
    assert.equal(fake.requests.length, 0);
    fake.enqueue({ text: ['fine'] });
    assert.deepEqual((await callThrough(pool, call)).deltas, ['fine']);
  });

  it('calls run side by side on the threads and each gets only its own deltas', async () => {
    fake.enqueue(
      ...Array.from({ length: 6 }, (_, index) => ({ text: [`reply `, `${index}`], chunkIntervalMs: 10 })),
    );
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => callThrough(pool, call)));
    const texts = outcomes.map((outcome) => outcome.deltas.join(''));
    assert.deepEqual(
      texts.toSorted(),
      Array.from({ length: 6 }, (_, index) => `reply ${index}`),
    );
    for (const outcome of outcomes) assert.equal(outcome.turn?.text, outcome.deltas.join(''));
  });
});

describe('starting the model threads', () => {
  it('threads start on demand, up to the pool size; start() starts them all ahead of the first call', async () => {
    const fake = await startFakeOpenAIChat([{ text: ['ok'] }]);
    const onDemand = new ModelThreadPool({ threads: 3, logger });
    const ahead = new ModelThreadPool({ threads: 3, logger });
    try {
      const call = sayHi(fake.url);
      assert.equal(onDemand.threadCount, 0);
      await callThrough(onDemand, call);
      await callThrough(onDemand, call);
      assert.equal(onDemand.threadCount, 1, 'one call at a time needs one thread');
      await Promise.all([callThrough(onDemand, call), callThrough(onDemand, call)]);
      assert.equal(onDemand.threadCount, 2, 'a second thread for a call while the first is busy');

      ahead.start();
      assert.equal(ahead.threadCount, 3);
      assert.deepEqual((await callThrough(ahead, call)).deltas, ['ok']);
      assert.equal(ahead.threadCount, 3);
    } finally {
      await onDemand.close();
      await ahead.close();
      await fake.close();
    }
  });
});

describe('closing the model threads', () => {
  it('fails the calls in flight and refuses new ones', async () => {
    const fake = await startFakeOpenAIChat([{ type: 'hang' }]);
    const pool = new ModelThreadPool({ threads: 1, logger });
    try {
      const call = sayHi(fake.url);
      const pending = callThrough(pool, call);
      await fake.waitForRequests(1);
      await pool.close();
      assert.match(String((await pending).error), /the model thread stopped during the call/);
      assert.match(String((await callThrough(pool, call)).error), /the model threads are closed/);
    } finally {
      await pool.close();
      await fake.close();
    }
  });
});

/**
 * A provider whose reply never ends: OpenAI Chat chunks of 64 KB of text, written as fast as the
 * connection takes them until the client goes away.
 */
async function startEndlessProvider(): Promise<{ url: string; close(): Promise<void> }> {
  const chunk = Buffer.from(
    `data: ${JSON.stringify({
      id: 'chatcmpl-endless',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'fake-model',
      choices: [{ index: 0, delta: { content: 'x'.repeat(64 * 1024) }, finish_reason: null }],
    })}\n\n`,
  );
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    let open = true;
    response.on('close', () => (open = false));
    const pump = () => {
      while (open && response.write(chunk));
      if (open) response.once('drain', pump);
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a model thread that stops', () => {
  it('fails only the call it was running (heap limit reached on a runaway reply); the next call starts a new thread', async () => {
    const endless = await startEndlessProvider();
    const fake = await startFakeOpenAIChat([{ text: ['still', ' here'] }]);
    const pool = new ModelThreadPool({ threads: 1, logger, resourceLimits: { maxOldGenerationSizeMb: 64 } });
    try {
      let received = 0;
      const runaway = await pool
        .call(sayHi(endless.url), new AbortController().signal, {
          onText: (text) => (received += text.length),
          onThinking: () => {},
        })
        .then(
          () => assert.fail('an endless reply cannot complete'),
          (error: unknown) => error,
        );
      assert.match(String(runaway), /the model thread stopped during the call/);
      assert.ok(received > 0, 'deltas streamed until the thread stopped');
      assert.equal(pool.threadCount, 0, 'the stopped thread left the pool');

      const next = await callThrough(pool, sayHi(fake.url));
      assert.deepEqual(next.deltas, ['still', ' here']);
      assert.equal(next.turn?.text, 'still here');
      assert.equal(pool.threadCount, 1);
    } finally {
      await pool.close();
      await fake.close();
      await endless.close();
    }
  });
});
