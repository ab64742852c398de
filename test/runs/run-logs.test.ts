import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { EVENTS_THROUGH_FIRST_TEXT } from '../fakes/fake-openai-chat.ts';
import { SCALE_OUT } from '../support/deployment.ts';
import { startRestartableService, type RestartableService } from '../support/restartable-service.ts';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { readAll, type SseFrame } from '../support/sse-client.ts';
import { deferred, eventually } from '../support/waits.ts';

/**
 * Issue 27, logs: every line written while a run executes carries the run's fields, and one `info`
 * line per run, `run finished`, at its end gives its status, duration, turns, tokens and model. The
 * service's own lines are read as it writes them (scale-out: the worker process's stdout too).
 */

/** The fields that tie a line to its run and to its trace (its `invoke_agent` span). */
const RUN_FIELDS = ['runId', 'traceId', 'spanId'] as const;

/** The lines that end one execution of a run (it starts with `run started`). */
const EXECUTION_ENDS = new Set(['run parked', 'run handed over', 'run finished']);

/**
 * Whether a line can be about a run: not an HTTP request's (its `reqId`), nor Fastify's of the
 * server starting (a restarted service takes its runs up again before it listens).
 */
const aboutRuns = (line: LogLine): boolean =>
  line.reqId === undefined && !/^Server listening at /.test(String(line.msg));

/** pino's number for `info`. */
const INFO = 30;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- log lines are arbitrary JSON
type LogLine = Record<string, any>;

/**
 * The service's log lines as it writes them (scale-out: the worker process's stdout too), read as
 * a test needs them.
 */
class ServiceLog {
  /** Handed to the service as `logLines`. */
  readonly raw: string[] = [];
  /** Every run whose end line a test took, checked again at the end for a second one. */
  readonly #ended = new Set<string>();

  lines(): LogLine[] {
    return this.raw.map((line) => JSON.parse(line) as LogLine);
  }

  endLines(runId: string): LogLine[] {
    return this.lines().filter((line) => line.msg === 'run finished' && line.runId === runId);
  }

  /** Waits for the run's end line (written once its terminal event is durable, maybe after the stream ended). */
  async endLineOf(runId: string): Promise<LogLine> {
    this.#ended.add(runId);
    await eventually(() => this.endLines(runId).length > 0, `the end line of ${runId} is written`);
    const lines = this.endLines(runId);
    assert.equal(lines.length, 1, 'exactly one end line');
    const line = lines[0]!;
    // Scale-out, the worker process executes the runs: its logger (the CLI's) names the service.
    if (SCALE_OUT) assert.equal(line.service, 'agent-runs', 'the end line comes from the worker');
    return line;
  }

  /**
   * The lines written while the run executes: from each `run started` of it to the `run parked`,
   * `run handed over` or `run finished` that ends that execution, the lines of HTTP requests and of
   * the service's start aside. The runs of these suites execute one at a time, so every other line
   * there is written by this run's execution, and each must carry the run's fields.
   */
  linesWhileExecuting(runId: string): LogLine[] {
    const during: LogLine[] = [];
    let executing = false;
    for (const line of this.lines()) {
      const ofRun = line.runId === runId;
      if (ofRun && line.msg === 'run started') executing = true;
      if (!executing || !aboutRuns(line)) continue;
      during.push(line);
      if (ofRun && EXECUTION_ENDS.has(line.msg)) executing = false;
    }
    assert.equal(during.at(-1)?.msg, 'run finished', 'the run started and finished in the log');
    for (const line of during) {
      for (const field of RUN_FIELDS) {
        assert.equal(typeof line[field], 'string', `"${line.msg}" carries ${field}`);
      }
      assert.equal(line.runId, runId, `"${line.msg}" is about this run`);
    }
    // One run, one trace context, whichever execution wrote the line.
    const [first] = during;
    for (const line of during) {
      assert.match(String(line.traceId), /^[0-9a-f]{32}$/);
      assert.match(String(line.spanId), /^[0-9a-f]{16}$/);
      assert.deepEqual(
        [line.traceId, line.spanId],
        [first?.traceId, first?.spanId],
        `"${line.msg}" joins the run's span`,
      );
    }
    return during;
  }

  assertEachEndedOnce(): void {
    for (const runId of this.#ended)
      assert.equal(this.endLines(runId).length, 1, `one end line for ${runId}`);
  }
}

/** The end line says what the terminal event says: status, turns, tokens, model. */
function assertEndLineMatches(
  line: LogLine,
  terminal: SseFrame | undefined,
  status: string,
  provider = 'fakeopenai',
): void {
  assert.ok(terminal, 'the stream ended with a terminal event');
  assert.equal(line.level, INFO);
  assert.equal(line.status, status);
  assert.equal(line.turns, terminal.data.data.turns);
  assert.deepEqual(line.tokens, terminal.data.data.tokens);
  assert.deepEqual(line.model, terminal.data.data.model);
  assert.equal(line.model.provider, provider);
  assert.equal(line.model.vendorModelId, 'fake-model');
  assert.equal(typeof line.durationMs, 'number');
  assert.ok(line.durationMs >= 0);
}

describe('run logs', { timeout: 120_000 }, () => {
  const log = new ServiceLog();
  let fixture: RunFixture;
  before(async () => {
    fixture = await startRunFixture('openai-chat', { logLines: log.raw });
  });
  after(async () => {
    try {
      log.assertEachEndedOnce();
    } finally {
      await fixture.close();
    }
  });
  afterEach(() => fixture.cleanUp());

  it('a succeeded run: its retry and its tool warning carry runId, and its one end line at info has status, turns, tokens and model', async () => {
    fixture.fake.enqueue(
      { type: 'http-error', status: 500 },
      {
        text: ['Hello', ', world.'],
        usage: { inputTokens: 100, outputTokens: 20, cachedTokens: 60, reasoningTokens: 5 },
      },
    );
    const { runId, frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'p',
      // An MCP server the run cannot reach (a loopback address the fetch guard refuses here): the
      // run starts without its tools, with a warning.
      tools: [{ kind: 'mcp', name: 'gone', url: 'http://127.0.0.1:9/mcp' }],
    });
    const end = await log.endLineOf(runId);
    assertEndLineMatches(end, frames.at(-1), 'succeeded');
    assert.equal(end.turns, 1);
    assert.deepEqual(end.tokens, {
      inputTokens: 100,
      cachedTokens: 60,
      reasoningTokens: 5,
      outputTokens: 20,
    });
    assert.equal(end.errorClass, undefined);

    const messages = log.linesWhileExecuting(runId).map((line) => line.msg);
    for (const expected of ['run started', 'MCP server unavailable at run start', 'retrying model call']) {
      assert.ok(messages.includes(expected), `"${expected}" is among ${JSON.stringify(messages)}`);
    }
  });

  it('a failed run (the provider refuses the key): one end line with status failed, its errorClass, and the usage of the terminal event', async () => {
    fixture.fake.enqueue({ type: 'http-error', status: 401 });
    const { runId, frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });
    assert.equal(frames.at(-1)?.data.type, 'error');
    const end = await log.endLineOf(runId);
    assertEndLineMatches(end, frames.at(-1), 'failed');
    assert.equal(end.errorClass, 'auth');
    log.linesWhileExecuting(runId);
  });

  it('a run cancelled mid-turn: one end line with status cancelled and the tokens of the turn it finished', async () => {
    const cancelled = deferred();
    fixture.fake.enqueue({
      text: ['one ', 'two'],
      usage: { inputTokens: 12, outputTokens: 4 },
      holdAfterChunks: EVENTS_THROUGH_FIRST_TEXT,
      holdUntil: cancelled.promise,
    });
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'p' });
    await run.waitForType('assistant_delta');
    const answer = await fixture.server.request('POST', `${fixture.ws}/agent-runs/${run.runId}/cancel`, {
      headers: fixture.headers,
    });
    assert.equal(answer.status, 200);
    cancelled.resolve();
    const frames = await run.ended;
    assert.equal(frames.at(-1)?.data.type, 'cancelled');
    const end = await log.endLineOf(run.runId);
    assertEndLineMatches(end, frames.at(-1), 'cancelled');
    assert.deepEqual(end.tokens, { inputTokens: 12, cachedTokens: 0, reasoningTokens: 0, outputTokens: 4 });
    log.linesWhileExecuting(run.runId);
  });

  it('a run cancelled while it waits for a slot: ended by the worker without a model call, one end line with status cancelled and no turn', async () => {
    const patch = (maxConcurrentRuns: number) =>
      fixture.server.admin('PATCH', `/workspaces/${fixture.slug}`, { maxConcurrentRuns });
    assert.equal((await patch(1)).status, 200);
    try {
      const released = deferred();
      fixture.fake.enqueue({ text: ['first'], holdUntil: released.promise });
      const running = await fixture.startRun({ systemPrompt: 's', prompt: 'holds the slot' });
      await fixture.fake.waitForRequests(1);
      const queued = await fixture.startRun({ systemPrompt: 's', prompt: 'waits' });
      const answer = await fixture.server.request('POST', `${fixture.ws}/agent-runs/${queued.runId}/cancel`, {
        headers: fixture.headers,
      });
      assert.equal(answer.status, 200);
      const frames = await queued.ended;
      assert.equal(frames.at(-1)?.data.type, 'cancelled');
      const end = await log.endLineOf(queued.runId);
      assertEndLineMatches(end, frames.at(-1), 'cancelled');
      assert.equal(end.turns, 0);
      released.resolve();
      await running.ended;
      await log.endLineOf(running.runId);
      assert.equal(fixture.fake.requests.length, 1, 'the cancelled run never called the model');
    } finally {
      assert.equal((await patch(100)).status, 200);
    }
  });

  it('a run parked on a client tool and resumed by its result: one end line, at the real end, with both turns', async () => {
    fixture.fake.enqueue(
      {
        toolCalls: [{ id: 'call_1', name: 'lookup', input: { q: 'a' } }],
        usage: { inputTokens: 10, outputTokens: 3 },
      },
      { text: ['found it'], usage: { inputTokens: 20, outputTokens: 5 } },
    );
    const run = await fixture.startRun({
      systemPrompt: 's',
      prompt: 'p',
      tools: [{ kind: 'local', name: 'lookup' }],
    });
    const call = await run.waitForType('local_tool_call');
    await eventually(
      () => log.lines().some((line) => line.msg === 'run parked' && line.runId === run.runId),
      'the run parked',
    );
    assert.equal(log.endLines(run.runId).length, 0, 'no end line while the run is parked');
    const posted = await fixture.server.request(
      'POST',
      `${fixture.ws}/agent-runs/${run.runId}/tool-results`,
      {
        headers: fixture.headers,
        body: { toolUseId: call.data.data.toolUseId, result: 'the answer' },
      },
    );
    assert.equal(posted.status, 200);
    const frames = await run.ended;
    assert.equal(frames.at(-1)?.data.type, 'result');
    const end = await log.endLineOf(run.runId);
    assertEndLineMatches(end, frames.at(-1), 'succeeded');
    assert.equal(end.turns, 2);
    assert.deepEqual(end.tokens, { inputTokens: 30, cachedTokens: 0, reasoningTokens: 0, outputTokens: 8 });
    const during = log.linesWhileExecuting(run.runId);
    assert.deepEqual(
      during.filter((line) => line.msg === 'run started').map((line) => line.attempt),
      [1, 2],
      'started, parked, and taken up again by its answer',
    );
  });

  it('a client tool that gets no result in time: the run parked is woken at its deadline and ends failed, one end line', async () => {
    fixture.fake.enqueue({ toolCalls: [{ id: 'call_1', name: 'lookup', input: { q: 'a' } }] });
    const run = await fixture.startRun({
      systemPrompt: 's',
      prompt: 'p',
      tools: [{ kind: 'local', name: 'lookup' }],
      localToolTimeoutMs: 1000,
    });
    const frames = await run.ended;
    assert.equal(frames.at(-1)?.data.data.subtype, 'error_local_tool_timeout');
    const end = await log.endLineOf(run.runId);
    assertEndLineMatches(end, frames.at(-1), 'failed');
    log.linesWhileExecuting(run.runId);
  });
});

describe('run logs across a takeover', { timeout: 120_000 }, () => {
  const log = new ServiceLog();
  let service: RestartableService;
  before(async () => {
    service = await startRestartableService({ slug: 'logs-restart', logLines: log.raw });
  });
  after(async () => {
    try {
      log.assertEachEndedOnce();
    } finally {
      await service.close();
    }
  });
  afterEach(() => service.cleanUp());

  it('the service stops mid-turn: the run is handed over, taken up from its log by the next service, and ends with one end line', async () => {
    service.fake.enqueue(
      // Held until the first service stops: the turn is cut, and the takeover asks again.
      { text: ['never sent'], holdUntil: new Promise(() => {}) },
      { text: ['Done after the restart.'], usage: { inputTokens: 9, outputTokens: 6 } },
    );
    const first = await service.restart();
    const watch = await service.startRun(first, { systemPrompt: 's', prompt: 'p' });
    await service.fake.waitForRequests(1);
    const second = await service.restart();
    const frames = await readAll(service.streamUrl(second, watch.runId), service.headers);
    assert.equal(frames.at(-1)?.data.type, 'result');

    const end = await log.endLineOf(watch.runId);
    assertEndLineMatches(end, frames.at(-1), 'succeeded', 'anthropic');
    const during = log.linesWhileExecuting(watch.runId);
    const messages = during.map(
      (line) => `${line.msg}${line.attempt === undefined ? '' : ` ${line.attempt}`}`,
    );
    assert.deepEqual(
      messages.filter((message) => message.startsWith('run ')),
      ['run started 1', 'run handed over 1', 'run started 2', 'run finished'],
    );
  });
});
