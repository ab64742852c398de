import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  LocalToolDispatcher,
  withFiles,
  type CallReport,
  type RunEvent,
  type RunTools,
} from '@agent-runs/client';
import { deferred, withCap, WAIT_CAP_MS } from '../support/waits.ts';
import { ECHO_MODEL, startClientFixture, type ClientFixture } from './client-fixture.ts';

// The dispatcher is what the client's run and send helpers take as `tools`.
const _fitsRunTools: RunTools = new LocalToolDispatcher();

function resultsIn(events: RunEvent[]) {
  return events.flatMap((event) => (event.type === 'local_tool_result_in' ? [event.data] : []));
}

function callsIn(events: RunEvent[]) {
  return events.flatMap((event) => (event.type === 'local_tool_call' ? [event.data] : []));
}

describe('LocalToolDispatcher against the service', () => {
  let fixture: ClientFixture;

  before(async () => {
    fixture = await startClientFixture('tools');
  });
  after(() => fixture.close());

  /** Creates a run offering the dispatcher's tools and follows it to its end, answering calls. */
  async function runWith(tools: LocalToolDispatcher, prompt: string, extra: Record<string, unknown> = {}) {
    const events: RunEvent[] = [];
    const outcome = await withCap(
      fixture.client.runs.run(
        { systemPrompt: 'You use tools.', modelId: ECHO_MODEL, prompt, tools: tools.toolRefs(), ...extra },
        { tools, onEvent: (event) => void events.push(event) },
      ),
      WAIT_CAP_MS,
      () => `the run of '${prompt}' did not end`,
    );
    return { outcome, events };
  }

  it('posts the handler string as the result, once per toolUseId', async () => {
    const tools = new LocalToolDispatcher();
    const seen: unknown[] = [];
    const ref = tools.local(
      'get_time',
      (args, context) => {
        seen.push({ args, toolUseId: context.toolUseId, runId: context.runId });
        return '12:00 UTC';
      },
      { description: 'The current time.', parameters: { type: 'object', properties: {} } },
    );
    assert.deepEqual(ref, {
      kind: 'local',
      name: 'get_time',
      description: 'The current time.',
      parameters: { type: 'object', properties: {} },
    });

    const { outcome, events } = await runWith(tools, 'call get_time {}');
    assert.equal(outcome.type, 'result');
    assert.equal(outcome.type === 'result' && outcome.result.text, 'Tool get_time returned: 12:00 UTC');
    const [call] = callsIn(events);
    assert.deepEqual(seen, [{ args: {}, toolUseId: call?.toolUseId, runId: outcome.runId }]);
    assert.deepEqual(resultsIn(events), [{ toolUseId: call?.toolUseId, output: '12:00 UTC' }]);
  });

  it('posts a non-string return value as JSON', async () => {
    const tools = new LocalToolDispatcher();
    tools.local('get_weather', (args) => ({ city: args.city, celsius: 21 }), {
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    });
    const { events } = await runWith(tools, 'call get_weather {"city":"Paris"}');
    assert.deepEqual(
      resultsIn(events).map((result) => result.output),
      ['{"city":"Paris","celsius":21}'],
    );
  });

  it('posts a thrown error as the error, cut to 8 KB', async () => {
    const tools = new LocalToolDispatcher();
    tools.local('explode', () => {
      throw new Error('boom');
    });
    tools.local('explode_loudly', () => {
      throw new Error('é'.repeat(10_000));
    });
    const { outcome, events } = await runWith(tools, 'call explode {}');
    assert.equal(outcome.type === 'result' && outcome.result.text, 'Tool explode returned: boom');
    assert.deepEqual(
      resultsIn(events).map(({ output, isError }) => ({ output, isError })),
      [{ output: 'boom', isError: true }],
    );

    const loud = await runWith(tools, 'call explode_loudly {}');
    const [answer] = resultsIn(loud.events);
    assert.equal(answer?.isError, true);
    const bytes = Buffer.byteLength(answer?.output ?? '', 'utf8');
    assert.ok(bytes <= 8 * 1024 && bytes > 8 * 1024 - 64, `the error is cut to 8 KB: ${bytes} bytes`);
    assert.match(answer?.output ?? '', /^é+… \[truncated\]$/);
  });

  it('answers a call of a tool it has no handler for with an error', async () => {
    const tools = new LocalToolDispatcher();
    tools.local('known', () => 'ok');
    const { outcome, events } = await runWith(tools, 'call mystery {}', {
      tools: [...tools.toolRefs(), { kind: 'local', name: 'mystery' }],
    });
    assert.equal(outcome.type, 'result');
    const [answer] = resultsIn(events);
    assert.equal(answer?.isError, true);
    assert.match(answer?.output ?? '', /no handler for the local tool 'mystery'/);
  });

  it('posts files returned with withFiles along with the result', async () => {
    const tools = new LocalToolDispatcher();
    tools.local('export_notes', () =>
      withFiles('exported', [
        { filename: 'notes.txt', mimeType: 'text/plain', data: Buffer.from('a note').toString('base64') },
      ]),
    );
    const { events } = await runWith(tools, 'call export_notes {}');
    const [answer] = resultsIn(events);
    assert.equal(answer?.output, 'exported');
    assert.deepEqual(answer?.files, [{ filename: 'notes.txt', mimeType: 'text/plain', sizeBytes: 6 }]);
  });

  it('runs the read-only calls of one turn concurrently', async () => {
    const tools = new LocalToolDispatcher();
    const started = new Set<string>();
    const bothStarted = deferred();
    const handler = (name: string) => async () => {
      started.add(name);
      if (started.size === 2) bothStarted.resolve();
      // Sequential handling would wait here forever: the other call only starts after this one.
      await withCap(bothStarted.promise, WAIT_CAP_MS, () => `${name} ran alone`);
      return `${name} done`;
    };
    tools.local('lookup_a', handler('lookup_a'), { readOnly: true });
    tools.local('lookup_b', handler('lookup_b'), { readOnly: true });
    const { outcome, events } = await runWith(tools, 'call lookup_a {} call lookup_b {}');
    assert.equal(outcome.type, 'result');
    assert.deepEqual(
      resultsIn(events)
        .map((result) => result.output)
        .sort(),
      ['lookup_a done', 'lookup_b done'],
    );
  });

  it('runs mutating calls one at a time, in the order the model emitted them', async () => {
    const tools = new LocalToolDispatcher();
    const order: string[] = [];
    let running = 0;
    const handler = (name: string) => async () => {
      running++;
      order.push(`start ${name}`);
      assert.equal(running, 1, 'no other mutating call runs at the same time');
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push(`end ${name}`);
      running--;
      return name;
    };
    tools.local('write_a', handler('write_a'));
    tools.local('write_b', handler('write_b'));
    const { events } = await runWith(tools, 'call write_a {} call write_b {}');
    assert.deepEqual(order, ['start write_a', 'end write_a', 'start write_b', 'end write_b']);
    assert.deepEqual(
      resultsIn(events).map((result) => result.output),
      ['write_a', 'write_b'],
    );
  });

  it('treats a call answered by someone else first as settled, not as a failure', async () => {
    const reports: CallReport[] = [];
    const tools = new LocalToolDispatcher({ onCallSettled: (report) => reports.push(report) });
    let handlerSignal: AbortSignal | undefined;
    tools.local('slow_lookup', async (_args, context) => {
      handlerSignal = context.signal;
      // Another client answers while this handler is still working.
      await fixture.client.runs.submitToolResult(context.runId, {
        toolUseId: context.toolUseId,
        result: 'answered by another client',
      });
      return 'answered by the handler';
    });
    const { outcome, events } = await runWith(tools, 'call slow_lookup {}');
    assert.equal(
      outcome.type === 'result' && outcome.result.text,
      'Tool slow_lookup returned: answered by another client',
    );
    assert.equal(resultsIn(events).length, 1);
    assert.deepEqual(
      reports.map((report) => report.outcome),
      ['answered_elsewhere'],
    );
    assert.ok(handlerSignal, 'the handler ran');
  });

  it('aborts a running handler when the run ends (local tool timeout)', async () => {
    const reports: CallReport[] = [];
    const tools = new LocalToolDispatcher({ onCallSettled: (report) => reports.push(report) });
    const aborted = deferred<unknown>();
    tools.local('never_returns', (_args, context) => {
      return new Promise((_, reject) => {
        context.signal.addEventListener('abort', () => {
          aborted.resolve(context.signal.reason);
          reject(context.signal.reason);
        });
      });
    });
    const { outcome } = await runWith(tools, 'call never_returns {}', { localToolTimeoutMs: 1000 });
    assert.equal(outcome.type === 'result' && outcome.result.subtype, 'error_local_tool_timeout');
    await withCap(aborted.promise, WAIT_CAP_MS, () => 'the handler was not aborted');
    assert.deepEqual(
      reports.map((report) => report.outcome),
      ['run_ended'],
    );
  });

  it('aborts a running handler when the reader stops following the run', async () => {
    const tools = new LocalToolDispatcher();
    const started = deferred();
    const aborted = deferred();
    tools.local('wait_forever', (_args, context) => {
      started.resolve();
      return new Promise((_, reject) =>
        context.signal.addEventListener('abort', () => {
          aborted.resolve();
          reject(new Error('stopped'));
        }),
      );
    });
    const { runId } = await fixture.client.runs.create({
      systemPrompt: 's',
      modelId: ECHO_MODEL,
      prompt: 'call wait_forever {}',
      tools: tools.toolRefs(),
      localToolTimeoutMs: 1000,
    });
    const stop = new AbortController();
    const following = fixture.client.runs.follow(runId, { tools, signal: stop.signal });
    await withCap(started.promise, WAIT_CAP_MS, () => 'the handler did not start');
    stop.abort(new Error('the user left'));
    await assert.rejects(following);
    await withCap(aborted.promise, WAIT_CAP_MS, () => 'the handler was not aborted');
    // Nothing was posted: the run waits out its local tool timeout.
    const events: RunEvent[] = [];
    for await (const event of fixture.client.runs.stream(runId)) events.push(event);
    assert.equal(resultsIn(events).length, 0);
    const last = events.at(-1);
    assert.equal(last?.type === 'result' && last.data.subtype, 'error_local_tool_timeout');
  });

  it('cuts a result over 2 MB to 2 MB instead of having it refused', async () => {
    const tools = new LocalToolDispatcher();
    tools.local('dump', () => 'x'.repeat(3 * 1024 * 1024));
    const { outcome, events } = await runWith(tools, 'call dump {}');
    assert.equal(outcome.type, 'result');
    const [answer] = resultsIn(events);
    assert.equal(answer?.isError, undefined);
    assert.equal(Buffer.byteLength(answer?.output ?? '', 'utf8'), 2 * 1024 * 1024);
    assert.match(answer?.output ?? '', /x… \[truncated\]$/);
  });

  it('answers with an error when the service refuses the result (a file type it does not take)', async () => {
    const tools = new LocalToolDispatcher();
    tools.local('export_binary', () =>
      withFiles('exported', [{ filename: 'tool.exe', mimeType: 'application/x-msdownload', data: 'AAAA' }]),
    );
    const { outcome, events } = await runWith(tools, 'call export_binary {}');
    assert.equal(outcome.type, 'result');
    const [answer] = resultsIn(events);
    assert.equal(answer?.isError, true);
    assert.match(answer?.output ?? '', /^the service refused the tool's result: /);
  });

  describe('when a tool-result POST gets no response', () => {
    /** A client whose first tool-result POST fails like a dropped connection, before or after the service got it. */
    function droppingClient(when: 'before' | 'after') {
      let dropped = false;
      let posts = 0;
      const client = fixture.clientWith({
        fetch: async (input, init) => {
          const isToolResult = init?.method === 'POST' && String(input).endsWith('/tool-results');
          if (!isToolResult) return fetch(input, init);
          posts++;
          if (dropped) return fetch(input, init);
          dropped = true;
          if (when === 'after') await (await fetch(input, init)).text();
          throw new TypeError('fetch failed');
        },
      });
      return { client, posts: () => posts };
    }

    async function runThrough(client: ReturnType<typeof droppingClient>['client']) {
      const reports: CallReport[] = [];
      const tools = new LocalToolDispatcher({ onCallSettled: (report) => reports.push(report) });
      tools.local('get_time', () => 'noon');
      const events: RunEvent[] = [];
      const outcome = await withCap(
        client.runs.run(
          { systemPrompt: 's', modelId: ECHO_MODEL, prompt: 'call get_time {}', tools: tools.toolRefs() },
          { tools, onEvent: (event) => void events.push(event) },
        ),
        WAIT_CAP_MS,
        () => 'the run did not end',
      );
      return { outcome, events, reports };
    }

    it('retries it, and the service takes the one answer', async () => {
      const dropping = droppingClient('before');
      const { outcome, events, reports } = await runThrough(dropping.client);
      assert.equal(outcome.type === 'result' && outcome.result.text, 'Tool get_time returned: noon');
      assert.equal(dropping.posts(), 2);
      assert.equal(resultsIn(events).length, 1);
      assert.deepEqual(
        reports.map((report) => report.outcome),
        ['posted'],
      );
    });

    it('a retry of an answer the service already took is not a second answer', async () => {
      const dropping = droppingClient('after');
      const { outcome, events, reports } = await runThrough(dropping.client);
      assert.equal(outcome.type === 'result' && outcome.result.text, 'Tool get_time returned: noon');
      assert.equal(resultsIn(events).length, 1);
      // The retry met 404 unknown_tool_use (or the echo came first): settled, not failed.
      assert.ok(dropping.posts() <= 2);
      assert.deepEqual(
        reports.map((report) => report.outcome),
        ['answered_elsewhere'],
      );
    });
  });

  it('refuses a second tool with a name already registered', () => {
    const tools = new LocalToolDispatcher();
    tools.local('dup', () => '');
    assert.throws(() => tools.local('dup', () => ''), /already registered/);
    assert.throws(() => tools.local('bad-name', () => ''), /must match/);
  });
});
