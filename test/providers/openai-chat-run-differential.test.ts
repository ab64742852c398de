import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { ScriptedRawReply } from '../fakes/scripted-reply.ts';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { readToEnd } from '../support/sse-client.ts';
import { corpusCase } from './openai-chat-corpus/index.ts';
import { wireRequest, type NamedPort, type WireRequest } from './openai-chat-corpus/port-capture.ts';
import { PORT_A, PORT_B } from './openai-chat-corpus/ports-under-comparison.ts';
import { embeddedOnly } from '../support/deployment.ts';

/**
 * The rule: a run does the same whichever port calls its `openai-chat` model. The same run through
 * two services (one per port, each with its own fake replaying the same recorded replies) writes the
 * same event log (every frame's id, event, seq, type and payload), ends with the same snapshot
 * (status, finalText, error, tokens, turns, model), and sends the provider the same requests (path,
 * compared headers, JSON body: the second turn's carries the first turn's response messages back).
 */

interface RunScenario {
  name: string;
  body: Record<string, unknown>;
  /** The provider's replies, one per model call, in order. */
  replies: ScriptedRawReply[];
  /** The client's answer to a `local_tool_call` (the tool-results body, without the toolUseId). */
  answer?: (name: string, args: unknown) => Record<string, unknown>;
}

interface RunRecord {
  frames: Array<{ id: string | undefined; event: string | undefined; data: unknown }>;
  snapshot: Record<string, unknown>;
  providerRequests: WireRequest[];
}

const WEATHER = {
  kind: 'local',
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const TIME = {
  kind: 'local',
  name: 'get_time',
  description: 'Local time in a time zone.',
  parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] },
};

const reply = (prefix: string) => corpusCase(prefix).reply;

/** The corpus's 429, with a Retry-After of 0 so that the run's retry comes at once. */
function rateLimitedNow(): ScriptedRawReply {
  const limited = reply('http: 429 rate_limit_exceeded');
  return { ...limited, headers: { ...limited.headers, 'retry-after': '0' } };
}

const SCENARIOS: RunScenario[] = [
  {
    name: 'a text reply',
    body: { systemPrompt: 'You are terse.', prompt: 'Say hello.' },
    replies: [reply('text: OpenAI stream')],
  },
  {
    name: 'two client tool calls answered through the tool-results route, then a text reply',
    body: {
      systemPrompt: 'Use the tools.',
      prompt: 'Weather in Paris, time in Tokyo?',
      tools: [WEATHER, TIME],
    },
    replies: [reply('tools: text then two parallel calls'), reply('text: multi-byte UTF-8')],
    answer: (name, args) =>
      name === 'get_weather'
        ? { result: `21°C and sunny in ${(args as { city?: string }).city}` }
        : { error: 'time service unavailable' },
  },
  {
    name: 'reasoning at reasoningLevel high (thinking deltas, then text)',
    body: { systemPrompt: 'Think first.', prompt: 'Is 1,001 prime?', reasoningLevel: 'high' },
    replies: [reply('reasoning: reasoning_content then content')],
  },
  {
    name: 'a reply cut at max tokens (truncation)',
    body: { systemPrompt: 's', prompt: 'Tell me a long story.' },
    replies: [reply('finish: length')],
  },
  {
    name: 'an HTTP 429 retried, then a text reply',
    body: { systemPrompt: 's', prompt: 'Say hello.' },
    replies: [rateLimitedNow(), reply('text: OpenAI stream')],
  },
  {
    name: 'an error object mid-stream after text',
    body: { systemPrompt: 's', prompt: 'Say hello.' },
    replies: [reply('error: an error object mid-stream')],
  },
  {
    name: 'the connection cut after some text',
    body: { systemPrompt: 's', prompt: 'Say hello.' },
    replies: [reply('dropped: the connection is cut after some text')],
  },
  {
    name: 'a client tool call whose arguments are not valid JSON',
    body: { systemPrompt: 's', prompt: 'Weather in Paris?', tools: [WEATHER] },
    replies: [reply('tools: arguments that are not valid JSON'), reply('text: OpenAI stream')],
    answer: () => ({ result: 'unknown city' }),
  },
];

async function runThrough(fixture: RunFixture, scenario: RunScenario): Promise<RunRecord> {
  fixture.fake.enqueue(...scenario.replies);
  const created = await fixture.createRun(scenario.body);
  assert.equal(created.status, 202, JSON.stringify(created.body));
  const runId = created.body.runId as string;
  const frames = await readToEnd(await fixture.openStream(runId), fixture.streamUrl(runId), {
    onFrame: async (frame) => {
      if (frame.data.type !== 'local_tool_call') return;
      const { toolUseId, name, args } = frame.data.data;
      assert.ok(scenario.answer, `${scenario.name}: no answer scripted for ${name}`);
      const posted = await fixture.server.request('POST', `${fixture.ws}/agent-runs/${runId}/tool-results`, {
        headers: fixture.headers,
        body: { toolUseId, ...scenario.answer(name, args) },
      });
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
    },
  });
  const snapshot = await fixture.server.request('GET', `${fixture.ws}/agent-runs/${runId}`, {
    headers: fixture.headers,
  });
  assert.equal(snapshot.status, 200);
  const { status, finalText, error, tokens, turns, model } = snapshot.body;
  return {
    frames: frames.map((frame) => ({ id: frame.id, event: frame.event, data: frame.data })),
    snapshot: { status, finalText, error, tokens, turns, model },
    providerRequests: fixture.fake.requests.map(wireRequest),
  };
}

describe(
  `OpenAI chat runs: ${PORT_B.name} against ${PORT_A.name}`,
  embeddedOnly('each service is given one of the two model ports in process, where its worker runs'),
  () => {
    const fixtures = new Map<NamedPort, RunFixture>();
    const fixtureOf = (port: NamedPort) => {
      const fixture = fixtures.get(port);
      assert.ok(fixture, `no service for ${port.name}`);
      return fixture;
    };
    before(async () => {
      for (const port of [PORT_A, PORT_B])
        fixtures.set(port, await startRunFixture('openai-chat', { models: port.port }));
    });
    after(async () => {
      for (const fixture of fixtures.values()) await fixture.close();
    });
    afterEach(async () => {
      for (const fixture of fixtures.values()) await fixture.cleanUp();
    });

    for (const scenario of SCENARIOS) {
      it(`same event log, snapshot and provider requests: ${scenario.name}`, async () => {
        const a = await runThrough(fixtureOf(PORT_A), scenario);
        const b = await runThrough(fixtureOf(PORT_B), scenario);
        const label = `${PORT_B.name} vs ${PORT_A.name} on "${scenario.name}"`;
        assert.equal(
          a.providerRequests.length,
          scenario.replies.length,
          `${label}: one model call per reply`,
        );
        assert.deepEqual(b.frames, a.frames, `${label}: the event log`);
        assert.deepEqual(b.snapshot, a.snapshot, `${label}: the run snapshot`);
        assert.deepEqual(b.providerRequests, a.providerRequests, `${label}: the provider requests`);
      });
    }
  },
);
