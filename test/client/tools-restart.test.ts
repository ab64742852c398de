import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  LocalToolDispatcher,
  type AgentRunsClient,
  type CallReport,
  type RunEvent,
} from '@agent-runs/client';
import { deferred, withCap, WAIT_CAP_MS } from '../support/waits.ts';
import { ECHO_MODEL, startClientFixture, type ClientFixture } from './client-fixture.ts';

/** A client that counts its tool-result POSTs. */
function countingClient(fixture: ClientFixture): { client: AgentRunsClient; posts: () => number } {
  let posts = 0;
  const client = fixture.clientWith({
    fetch: (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (
        (init?.method ?? (input instanceof Request ? input.method : 'GET')) === 'POST' &&
        url.endsWith('/tool-results')
      ) {
        posts++;
      }
      return fetch(input, init);
    },
  });
  return { client, posts: () => posts };
}

async function allEvents(client: AgentRunsClient, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of client.runs.stream(runId)) events.push(event);
  return events;
}

function answeredIds(events: RunEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'local_tool_result_in' ? [event.data.toolUseId] : []));
}

describe('exactly one result per call across client restarts', () => {
  let fixture: ClientFixture;

  before(async () => {
    fixture = await startClientFixture('restart');
  });
  after(() => fixture.close());

  async function createRun(prompt: string, tools: LocalToolDispatcher): Promise<string> {
    const { runId } = await fixture.client.runs.create({
      systemPrompt: 'You use tools.',
      modelId: ECHO_MODEL,
      prompt,
      tools: tools.toolRefs(),
    });
    return runId;
  }

  /** Client A: receives the call of `toolName`, never answers it, and stops (as if killed). */
  async function clientThatDiesOnCall(runId: string, toolNames: string[], dyingOn: string) {
    const tools = new LocalToolDispatcher();
    const received = deferred();
    for (const name of toolNames) {
      tools.local(name, (_args, context) => {
        if (name !== dyingOn) return `${name} by A`;
        received.resolve();
        return new Promise((_, reject) =>
          context.signal.addEventListener('abort', () => reject(new Error('killed'))),
        );
      });
    }
    const stop = new AbortController();
    const attached = tools.attach(fixture.clientWith({}), runId, { signal: stop.signal });
    await withCap(received.promise, WAIT_CAP_MS, () => `client A never received the call of ${dyingOn}`);
    stop.abort(new Error('client A was killed'));
    const ended = await withCap(attached, WAIT_CAP_MS, () => 'client A did not stop');
    assert.equal(ended.terminal, undefined, 'client A stopped before the run ended');
  }

  it('a fresh dispatcher attached after a restart answers the pending call once and the run completes', async () => {
    const toolsOfRun = new LocalToolDispatcher();
    toolsOfRun.local('get_time', () => '');
    const runId = await createRun('call get_time {}', toolsOfRun);
    await clientThatDiesOnCall(runId, ['get_time'], 'get_time');

    // Client B: a new process would build its dispatcher from scratch, handlers bound by name.
    const b = countingClient(fixture);
    const toolsB = new LocalToolDispatcher();
    let runsOfB = 0;
    toolsB.local('get_time', () => {
      runsOfB++;
      return '12:00 from B';
    });
    const attachedB = await withCap(toolsB.attach(b.client, runId), WAIT_CAP_MS, () => 'B did not finish');
    assert.equal(attachedB.terminal?.type, 'result');
    assert.equal(
      attachedB.terminal?.type === 'result' && (attachedB.terminal.data as { text: string }).text,
      'Tool get_time returned: 12:00 from B',
    );
    assert.equal(runsOfB, 1);
    assert.equal(b.posts(), 1);
    assert.deepEqual(
      attachedB.calls.map((report) => report.outcome),
      ['posted'],
    );
    assert.equal(answeredIds(await allEvents(fixture.client, runId)).length, 1);

    // A second attach after the end posts nothing and runs nothing.
    const c = countingClient(fixture);
    const toolsC = new LocalToolDispatcher();
    let runsOfC = 0;
    toolsC.local('get_time', () => {
      runsOfC++;
      return 'late';
    });
    const attachedC = await withCap(toolsC.attach(c.client, runId), WAIT_CAP_MS, () => 'C did not finish');
    assert.equal(attachedC.terminal?.type, 'result');
    assert.equal(runsOfC, 0);
    assert.equal(c.posts(), 0);
  });

  it('after a restart only the calls without a local_tool_result_in are answered', async () => {
    const names = ['first_step', 'second_step'];
    const toolsOfRun = new LocalToolDispatcher();
    for (const name of names) toolsOfRun.local(name, () => '');
    // Mutating calls: the service publishes second_step only once first_step is answered.
    const runId = await createRun('call first_step {} call second_step {}', toolsOfRun);
    await clientThatDiesOnCall(runId, names, 'second_step');

    const b = countingClient(fixture);
    const toolsB = new LocalToolDispatcher();
    const runsOfB: string[] = [];
    for (const name of names) {
      toolsB.local(name, () => {
        runsOfB.push(name);
        return `${name} by B`;
      });
    }
    const attachedB = await withCap(toolsB.attach(b.client, runId), WAIT_CAP_MS, () => 'B did not finish');
    assert.equal(attachedB.terminal?.type, 'result');
    assert.deepEqual(runsOfB, ['second_step']);
    assert.equal(b.posts(), 1);
    assert.deepEqual(
      attachedB.calls.map((report) => [report.call.name, report.outcome]),
      [
        ['first_step', 'answered_elsewhere'],
        ['second_step', 'posted'],
      ],
    );
    const outputs = (await allEvents(fixture.client, runId)).flatMap((event) =>
      event.type === 'local_tool_result_in' ? [event.data.output] : [],
    );
    assert.deepEqual(outputs, ['first_step by A', 'second_step by B']);
  });

  it("a restarted client rebinds its handlers by name to the session's run in flight and to later messages", async () => {
    const definitions = new LocalToolDispatcher();
    definitions.local('get_time', () => '', { description: 'The time.' });
    const { sessionId } = await fixture.client.sessions.create({
      systemPrompt: 'You use tools.',
      modelId: ECHO_MODEL,
      tools: definitions.toolRefs(),
    });
    const { runId } = await fixture.client.sessions.message(sessionId, { prompt: 'call get_time {}' });
    await clientThatDiesOnCall(runId, ['get_time'], 'get_time');

    // After the restart: the session names its run in flight; follow it with fresh handlers.
    const tools = new LocalToolDispatcher();
    let runs = 0;
    tools.local('get_time', () => `${++runs}:00`, { description: 'The time.' });
    const { activeRunId } = await fixture.client.sessions.get(sessionId);
    assert.equal(activeRunId, runId);
    const resumed = await withCap(fixture.client.runs.follow(runId, { tools }), WAIT_CAP_MS, () => 'no end');
    assert.equal(resumed.type === 'result' && resumed.result.text, 'Tool get_time returned: 1:00');

    const next = await withCap(
      fixture.client.sessions.send(sessionId, 'call get_time {}', { tools }),
      WAIT_CAP_MS,
      () => 'the next message did not end',
    );
    assert.equal(next.type === 'result' && next.result.text, 'Tool get_time returned: 2:00');
    assert.equal(runs, 2);
  });

  it('two dispatchers attached at once: the service takes one result and each runs the handler at most once', async () => {
    const toolsOfRun = new LocalToolDispatcher();
    toolsOfRun.local('roll_dice', () => '');
    const runId = await createRun('call roll_dice {}', toolsOfRun);

    const bothRunning = deferred();
    let running = 0;
    const clients = ['one', 'two'].map((label) => {
      const counted = countingClient(fixture);
      const reports: CallReport[] = [];
      const tools = new LocalToolDispatcher({ onCallSettled: (report) => reports.push(report) });
      let runs = 0;
      tools.local('roll_dice', async () => {
        runs++;
        if (++running === 2) bothRunning.resolve();
        // Let both clients get this far (when both received the call before either answered).
        await Promise.race([bothRunning.promise, new Promise((resolve) => setTimeout(resolve, 500))]);
        return `4 from ${label}`;
      });
      return { label, counted, reports, tools, runs: () => runs };
    });
    const attached = await withCap(
      Promise.all(clients.map(({ tools, counted }) => tools.attach(counted.client, runId))),
      WAIT_CAP_MS,
      () => 'the two clients did not finish',
    );
    for (const result of attached) assert.equal(result.terminal?.type, 'result');

    const events = await allEvents(fixture.client, runId);
    assert.equal(answeredIds(events).length, 1, 'the service took exactly one result');
    for (const client of clients)
      assert.ok(client.runs() <= 1, `client ${client.label} ran the handler once at most`);
    const outcomes = clients.flatMap((client) => client.reports.map((report) => report.outcome)).sort();
    assert.deepEqual(outcomes, ['answered_elsewhere', 'posted']);
    const winner = clients.find((client) => client.reports[0]?.outcome === 'posted');
    const last = events.at(-1);
    assert.equal(
      last?.type === 'result' && last.data.text,
      `Tool roll_dice returned: 4 from ${winner?.label ?? '?'}`,
    );
  });
});
