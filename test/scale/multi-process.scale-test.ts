import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { startHttpToolServer, type HttpToolServer } from '../support/http-tool-server.ts';
import { describeFrames, openSse, readAll, type SseFrame } from '../support/sse-client.ts';
import { WAIT_CAP_MS, withCap } from '../support/waits.ts';
import { provisionAcme, startCluster, type Cluster, type ServiceProcess } from './cluster.ts';

const types = (frames: SseFrame[]) => frames.map((frame) => frame.data.type);
const seqs = (frames: SseFrame[]) => frames.map((frame) => frame.data.seq);
const text = (frames: SseFrame[]) =>
  frames
    .filter((frame) => frame.data.type === 'assistant_delta')
    .map((frame) => frame.data.data.text)
    .join('');

describe('scale-out: two API processes and two workers on PostgreSQL and Redis', () => {
  let cluster: Cluster;
  let fake: FakeProviderServer;
  let tools: HttpToolServer;
  let headers: Record<string, string>;
  const ws = '/api/v1/workspaces/acme';

  const api = (index: number) => cluster.apis[index]?.baseUrl ?? '';
  async function call(
    base: string,
    method: string,
    path: string,
    body?: unknown,
    extra: Record<string, string> = {},
  ) {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, ...extra, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const textBody = await response.text();
    return { status: response.status, body: textBody ? JSON.parse(textBody) : undefined };
  }

  before(async () => {
    fake = await startFakeAnthropic();
    tools = await startHttpToolServer();
    // The HTTP tool server of the exactly-once test is on loopback.
    cluster = await startCluster({
      apis: 2,
      workers: 2,
      leaseMs: 2000,
      env: { AGENT_RUNS_FETCH_ALLOW: '127.0.0.0/8' },
    });
    headers = { authorization: `Bearer ${await provisionAcme(api(0), cluster.adminToken, fake.url)}` };
  });
  after(async () => {
    await cluster?.stop();
    await fake?.close();
    await tools?.close();
  });

  it('a run created on API 1 streams from API 2; its local tool result is posted to API 1; the stream has no gap', async () => {
    fake.reset();
    fake.enqueue(
      { toolCalls: [{ id: 'toolu_a', name: 'lookup', input: { q: 'x' } }] },
      { text: ['Found ', 'it.'] },
    );
    const created = await call(api(0), 'POST', `${ws}/agent-runs`, {
      systemPrompt: 's',
      prompt: 'find x',
      tools: [
        {
          kind: 'local',
          name: 'lookup',
          parameters: { type: 'object', properties: { q: { type: 'string' } } },
        },
      ],
    });
    assert.equal(created.status, 202);
    const stream = await openSse(`${api(1)}${created.body.streamUrl}`, headers);
    const frames: SseFrame[] = [];
    for await (const frame of stream.frames) {
      frames.push(frame);
      if (frame.data.type === 'local_tool_call') {
        const posted = await call(api(0), 'POST', `${ws}/agent-runs/${created.body.runId}/tool-results`, {
          toolUseId: frame.data.data.toolUseId,
          result: 'x is here',
        });
        assert.equal(posted.status, 200);
      }
    }
    assert.deepEqual(types(frames), [
      'assistant_message',
      'local_tool_call',
      'local_tool_result_in',
      'assistant_delta',
      'assistant_delta',
      'assistant_message',
      'result',
    ]);
    assert.deepEqual(
      seqs(frames),
      frames.map((_, index) => index + 1),
    );
  });

  /**
   * Creates a run on API 1 with `body`, reads its stream from API 2, and kills the worker running it
   * with SIGKILL at the first frame `killAt` picks; `afterKill` then acts as the client. Returns the
   * run, its frames to the end and when the end came, once a replacement worker has started.
   */
  async function runKillingItsWorker(
    body: Record<string, unknown>,
    killAt: (frame: SseFrame, frames: SseFrame[], runId: string) => boolean | Promise<boolean>,
    afterKill: (runId: string, frame: SseFrame) => Promise<void> = async () => {},
  ): Promise<{ runId: string; streamUrl: string; frames: SseFrame[]; endedAt: number }> {
    const created = await call(api(0), 'POST', `${ws}/agent-runs`, body);
    assert.equal(created.status, 202);
    const runId = created.body.runId as string;
    const stream = await openSse(`${api(1)}${created.body.streamUrl}`, headers);
    const frames: SseFrame[] = [];
    let killed: ServiceProcess | undefined;
    const readToTheEnd = async () => {
      for await (const frame of stream.frames) {
        frames.push(frame);
        if (killed || !(await killAt(frame, frames, runId))) continue;
        killed = cluster.workers.find((worker) => worker.stdout.includes(runId));
        assert.ok(killed, 'one worker logged that it started the run');
        await killed.kill('SIGKILL');
        await afterKill(runId, frame);
      }
    };
    // A run that never ends (no worker takes it up again) fails the test rather than hanging it.
    await withCap(readToTheEnd(), WAIT_CAP_MS, () => `the run did not end: ${describeFrames(frames)}`);
    const endedAt = Date.now();
    assert.ok(killed, 'the run was taken over');
    const index = cluster.workers.indexOf(killed);
    cluster.workers[index] = await cluster.startWorker(`${killed.name}-restarted`);
    return { runId, streamUrl: created.body.streamUrl as string, frames, endedAt };
  }

  for (const retried of [false, true]) {
    const how = retried ? 'after a 500 that is retried' : 'at once';
    it(`a worker killed with SIGKILL mid-run: another worker takes the run over and the client stream simply continues (the regenerated turn answered ${how})`, async () => {
      fake.reset();
      const words = Array.from({ length: 200 }, (_, index) => `w${index} `);
      // The takeover regenerates the interrupted turn: the provider answers it the same way.
      fake.enqueue(
        { text: words, chunkIntervalMs: 60 },
        ...(retried ? [{ type: 'http-error' as const, status: 500 }] : []),
        { text: words, chunkIntervalMs: 5 },
      );
      const { frames, streamUrl } = await runKillingItsWorker(
        { systemPrompt: 's', prompt: 'long' },
        (_, received) => received.length === 8,
      );
      assert.equal(fake.requests.length, retried ? 3 : 2, 'the new worker regenerated the interrupted turn');
      assert.equal(types(frames).at(-1), 'result');
      assert.deepEqual(
        seqs(frames),
        frames.map((_, index) => index + 1),
        'no event lost or repeated',
      );
      assert.equal(text(frames), words.join(''), 'the reply arrives exactly once');
      const log = await readAll(`${api(0)}${streamUrl}`, headers);
      assert.deepEqual(
        log.map((frame) => frame.raw),
        frames.map((frame) => frame.raw),
        'the persisted log is what the client saw',
      );
    });
  }

  it('a worker killed with SIGKILL while a slow HTTP tool runs: the takeover never calls it again (the tool server sees exactly one request) and the model gets an interrupted-outcome-unknown result', async () => {
    fake.reset();
    tools.route('/slow_transfer', () => {
      // Holds the request: the worker dies while it runs.
    });
    const row = await fetch(`${api(0)}/admin/v1/workspaces/acme/tools`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cluster.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'transfer', http: { url: tools.url('/slow_transfer') } }),
    });
    assert.equal(row.status, 201);
    const { id } = (await row.json()) as { id: string };
    fake.enqueue(
      { toolCalls: [{ id: 'toolu_t', name: 'transfer', input: {} }] },
      { text: ['The transfer may or may not have happened.'] },
    );
    const { frames } = await runKillingItsWorker(
      { systemPrompt: 's', prompt: 'transfer', tools: [{ kind: 'svc', id }] },
      async (frame) => {
        if (frame.data.type !== 'tool_call') return false;
        await tools.until((requests) => requests.length > 0, 'the call reached the tool server');
        return true;
      },
    );
    assert.equal(types(frames).at(-1), 'result');
    assert.equal(tools.requestsTo('/slow_transfer').length, 1, 'the tool server saw exactly one request');
    const results = frames.filter((frame) => frame.data.type === 'tool_result');
    assert.equal(results.length, 1);
    assert.equal(results[0]?.data.data.ok, false);
    assert.match(results[0]?.data.data.summary, /interrupted/);
    assert.deepEqual(
      seqs(frames),
      frames.map((_, index) => index + 1),
      'no event lost or repeated',
    );
  });

  it("a worker killed with SIGKILL mid-run, and the regenerated turn fails before any output: the text the client has is the turn's assistant_message and the error's partialText", async () => {
    fake.reset();
    const words = Array.from({ length: 200 }, (_, index) => `v${index} `);
    fake.enqueue({ text: words, chunkIntervalMs: 60 }, { type: 'http-error', status: 400 });
    const { frames } = await runKillingItsWorker(
      { systemPrompt: 's', prompt: 'long' },
      (_, received) => received.length === 6,
    );
    const streamed = text(frames);
    assert.ok(streamed.startsWith('v0 v1 v2 v3 v4 v5 '), streamed);
    assert.deepEqual(types(frames).slice(-2), ['assistant_message', 'error']);
    assert.equal(frames.at(-2)?.data.data.text, streamed);
    assert.equal(frames.at(-1)?.data.data.partialText, streamed);
    assert.equal(frames.at(-1)?.data.data.errorClass, 'invalid_request');
  });

  it('cancelled while no worker holds the run, waiting for a tool result the client then posts: the takeover echoes the answer before cancelled', async () => {
    fake.reset();
    fake.enqueue({ toolCalls: [{ id: 'toolu_c', name: 'lookup', input: { q: 'x' } }] });
    const { frames } = await runKillingItsWorker(
      {
        systemPrompt: 's',
        prompt: 'find x',
        tools: [{ kind: 'local', name: 'lookup', parameters: { type: 'object' } }],
      },
      (frame) => frame.data.type === 'local_tool_call',
      async (runId, frame) => {
        assert.equal((await call(api(0), 'POST', `${ws}/agent-runs/${runId}/cancel`)).status, 200);
        const posted = await call(api(0), 'POST', `${ws}/agent-runs/${runId}/tool-results`, {
          toolUseId: frame.data.data.toolUseId,
          result: 'x is here',
        });
        assert.equal(posted.status, 200);
        assert.equal(posted.body.accepted, true);
      },
    );
    assert.deepEqual(types(frames), [
      'assistant_message',
      'local_tool_call',
      'local_tool_result_in',
      'cancelled',
    ]);
    assert.deepEqual(
      seqs(frames),
      frames.map((_, index) => index + 1),
    );
    assert.equal(fake.requests.length, 1, 'no model turn after the cancel');
  });

  it('cancelled while no worker holds a run cut short mid-turn: the takeover ends the turn with the text the client has, then cancelled', async () => {
    fake.reset();
    fake.enqueue({ text: Array.from({ length: 200 }, (_, index) => `c${index} `), chunkIntervalMs: 60 });
    const { frames } = await runKillingItsWorker(
      { systemPrompt: 's', prompt: 'long' },
      (_, received) => received.length === 5,
      async (runId) => {
        assert.equal((await call(api(0), 'POST', `${ws}/agent-runs/${runId}/cancel`)).status, 200);
      },
    );
    const streamed = text(frames);
    assert.ok(streamed.startsWith('c0 c1 c2 c3 c4 '), streamed);
    assert.deepEqual(types(frames).slice(-2), ['assistant_message', 'cancelled']);
    assert.equal(frames.at(-2)?.data.data.text, streamed);
    assert.equal(frames.at(-2)?.data.data.finishReason, null);
    assert.equal(fake.requests.length, 1, 'the cut turn is not generated again after the cancel');
  });

  it("a worker killed once its run parked for a tool result: the run ends at the wait's deadline (localToolTimeoutMs counts from the call, not from the takeover)", async () => {
    fake.reset();
    fake.enqueue({ toolCalls: [{ id: 'toolu_t', name: 'lookup', input: {} }] });
    const parkedLines = (runId: string) =>
      new RegExp(`"runId":"${runId}"[^\\n]*"wakeAt":"([^"]+)"[^\\n]*"msg":"run parked"`, 'g');
    let wakeAt = 0;
    const { runId, frames, endedAt } = await runKillingItsWorker(
      {
        systemPrompt: 's',
        prompt: 'find',
        localToolTimeoutMs: 4000,
        tools: [{ kind: 'local', name: 'lookup', parameters: { type: 'object' } }],
      },
      async (frame, _, runId) => {
        if (frame.data.type !== 'local_tool_call') return false;
        // The worker parks the run right after the call is durable: killing it at the frame alone
        // races the park. Killed once parked, no process keeps the run nor its deadline's timer.
        const owner = cluster.workers.find((worker) => worker.stdout.includes(runId));
        assert.ok(owner);
        const [, parkedUntil] = await owner.waitFor(new RegExp(parkedLines(runId).source));
        wakeAt = Date.parse(parkedUntil ?? '');
        return true;
      },
    );
    assert.equal(frames.at(-1)?.data.type, 'result');
    assert.equal(frames.at(-1)?.data.data.subtype, 'error_local_tool_timeout');
    assert.ok(endedAt >= wakeAt, 'the run did not end before its deadline');
    // The other worker's dispatch sweep wakes the run after its deadline; the resumed run expires
    // the calls at once. Restarting the wait at the takeover would park it again.
    const parks = cluster.processes().flatMap((service) => [...service.stdout.matchAll(parkedLines(runId))]);
    assert.deepEqual(
      parks.map(([, until]) => until),
      [new Date(wakeAt).toISOString()],
      'parked once, until the deadline counted from the call',
    );
  });

  /** A one-turn reply cancelled by `cancel` at its third frame: the run ends cancelled after that turn. */
  async function assertCancelledAfterItsTurn(
    reply: { text: string[]; chunkIntervalMs: number },
    cancel: (runId: string) => Promise<void>,
  ): Promise<void> {
    fake.reset();
    fake.enqueue(reply);
    const created = await call(api(0), 'POST', `${ws}/agent-runs`, { systemPrompt: 's', prompt: 'long' });
    const stream = await openSse(`${api(0)}${created.body.streamUrl}`, headers);
    const frames: SseFrame[] = [];
    for await (const frame of stream.frames) {
      frames.push(frame);
      if (frames.length === 3) await cancel(created.body.runId as string);
    }
    // Without the cancel reaching the worker, this reply would end with a result.
    assert.deepEqual(types(frames).slice(-2), ['assistant_message', 'cancelled']);
    assert.equal(frames.at(-2)?.data.data.text, reply.text.join(''), 'the answering turn finished');
    assert.equal(fake.requests.length, 1);
  }

  it('cancel sent to the replica that does not serve the stream stops the run at the end of its turn', async () => {
    await assertCancelledAfterItsTurn(
      { text: Array.from({ length: 30 }, () => 'x'), chunkIntervalMs: 30 },
      async (runId) => {
        const cancelled = await call(api(1), 'POST', `${ws}/agent-runs/${runId}/cancel`);
        assert.equal(cancelled.status, 200);
        assert.equal(cancelled.body.status, 'cancelling');
      },
    );
  });

  it("a cancel whose signal never arrives (stored, not published) is found by the owner's periodic check", async () => {
    // A 4.8 s reply: the check (every 2 s) finds the request while the turn is still answering.
    await assertCancelledAfterItsTurn(
      { text: Array.from({ length: 60 }, () => 'y'), chunkIntervalMs: 80 },
      async (runId) => {
        // The request as the cancel route stores it, without the Redis message a lost publish drops.
        const database = new pg.Client({ connectionString: cluster.env.DATABASE_URL });
        await database.connect();
        await database.query('update runs set cancel_requested_at = $1 where id = $2', [
          new Date().toISOString(),
          runId,
        ]);
        await database.end();
      },
    );
  });

  it('rate-limit counters live in Redis: two API replicas share one window', async () => {
    const adminHeaders = { authorization: `Bearer ${cluster.adminToken}` };
    const createdWs = await fetch(`${api(0)}/admin/v1/workspaces`, {
      method: 'POST',
      headers: { ...adminHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'tight', rateLimits: { runStart: 2 } }),
    });
    assert.equal(createdWs.status, 201);
    const keyResponse = await fetch(`${api(0)}/admin/v1/workspaces/tight/api-keys`, {
      method: 'POST',
      headers: { ...adminHeaders, 'content-type': 'application/json' },
      body: '{}',
    });
    const { key } = (await keyResponse.json()) as { key: string };
    const tightHeaders = { authorization: `Bearer ${key}` };
    const path = '/api/v1/workspaces/tight/agent-runs';
    const body = { systemPrompt: 's', prompt: 'hi', modelId: 'nope/none' };
    const statuses = [];
    for (const base of [api(0), api(1), api(1)]) {
      statuses.push((await call(base, 'POST', path, body, tightHeaders)).status);
    }
    // The first two are counted (and refused for the unknown model); the third hits the shared limit.
    assert.deepEqual(statuses, [400, 400, 429]);
  });

  it('SIGTERM on a worker hands its in-flight run over; the run completes on the other worker', async () => {
    fake.reset();
    const words = Array.from({ length: 30 }, (_, index) => `t${index} `);
    fake.enqueue({ text: words, chunkIntervalMs: 400 }, { text: words, chunkIntervalMs: 5 });
    const created = await call(api(0), 'POST', `${ws}/agent-runs`, { systemPrompt: 's', prompt: 'slow' });
    const runId = created.body.runId as string;
    const stream = await openSse(`${api(1)}${created.body.streamUrl}`, headers);
    const frames: SseFrame[] = [];
    let stopped: Promise<number | null> | undefined;
    for await (const frame of stream.frames) {
      frames.push(frame);
      if (frames.length === 2 && !stopped) {
        const owner = cluster.workers.find((worker) => worker.stdout.includes(runId));
        assert.ok(owner);
        stopped = owner.kill('SIGTERM');
      }
    }
    assert.equal(await stopped, 0, 'the worker stopped cleanly');
    assert.equal(fake.requests.length, 2, 'the other worker continued the handed-over run');
    assert.equal(types(frames).at(-1), 'result');
    assert.deepEqual(
      seqs(frames),
      frames.map((_, index) => index + 1),
    );
    assert.equal(text(frames), words.join(''));
  });
});
