/**
 * Busy sessions (extensions §6) across processes: a worker SIGKILLed while it executes a session's
 * run and three more runs of the session wait queued. None is lost, none starts twice, and they run
 * in the order they were accepted, on the surviving worker, each seeing what the runs before it
 * appended.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { readAll } from '../support/sse-client.ts';
import { deferred, eventually } from '../support/waits.ts';
import { transcript } from '../sessions/session-support.ts';
import { provisionAcme } from './cluster.ts';
import { startWorkerKillCluster, type WorkerKillCluster } from './worker-kill-cluster.ts';

const QUEUED = ['B', 'C', 'D'];

describe('scale-out: a worker SIGKILLed while runs of a session are queued', () => {
  let setup: WorkerKillCluster;
  let fake: FakeProviderServer;
  const api = () => setup.ws;
  const call = (method: string, path: string, body?: unknown) => setup.call(method, path, body);

  before(async () => {
    fake = await startFakeAnthropic();
    setup = await startWorkerKillCluster({
      provision: (baseUrl, adminToken) => provisionAcme(baseUrl, adminToken, fake.url),
    });
  });
  after(async () => {
    await setup?.cluster.stop();
    await fake?.close();
  });

  it('0 lost, 0 started twice, in the order accepted; the next queued run starts when the earlier ends on the other worker', async () => {
    // A's first execution is held until its worker is killed; its takeover gets 'reply A'.
    const never = deferred();
    fake.enqueue(
      { text: ['lost with the worker'], holdUntil: never.promise },
      { text: ['reply A'] },
      ...QUEUED.map((prompt) => ({ text: [`reply ${prompt}`] })),
    );
    const session = await call('POST', '/agent-sessions', { systemPrompt: 's' });
    assert.equal(session.status, 201);
    const sessionId = session.body.sessionId as string;
    const first = await call('POST', `/agent-sessions/${sessionId}/messages`, { prompt: 'A' });
    assert.equal(first.status, 202);
    const runIds = [first.body.runId as string];
    await eventually(() => fake.requests.length === 1, 'run A reached the provider');
    for (const prompt of QUEUED) {
      const queued = await call('POST', `/agent-sessions/${sessionId}/messages`, {
        prompt,
        ifBusy: 'enqueue',
      });
      assert.equal(queued.status, 202, JSON.stringify(queued.body));
      runIds.push(queued.body.runId);
      assert.equal((await call('GET', `/agent-runs/${queued.body.runId}`)).body.status, 'queued');
    }
    const owner = setup.cluster.workers.find((worker) => worker.stdout.includes(runIds[0]!));
    assert.ok(owner, 'the worker executing run A logged it');
    assert.equal(await owner.kill('SIGKILL'), null);
    never.resolve();

    await eventually(
      async () => {
        for (const runId of runIds) {
          if ((await call('GET', `/agent-runs/${runId}`)).body.status !== 'succeeded') return false;
        }
        return true;
      },
      'every run of the session succeeded',
      { intervalMs: 100 },
    );
    assert.equal(fake.requests.length, 2 + QUEUED.length, 'each queued run called the model once');
    assert.deepEqual(transcript(fake.requests.at(-1)), [
      'user: A',
      'assistant: reply A',
      'user: B',
      'assistant: reply B',
      'user: C',
      'assistant: reply C',
      'user: D',
    ]);
    for (const runId of runIds) {
      const frames = await readAll(`${api()}/agent-runs/${runId}/stream`, setup.headers);
      const terminals = frames.filter((frame) => ['result', 'error', 'cancelled'].includes(frame.data.type));
      assert.equal(terminals.length, 1, `${runId}: one terminal event`);
    }
    const replay = await call('GET', `/agent-sessions/${sessionId}/events`);
    assert.deepEqual(
      (replay.body.events as Array<{ type: string; text: string }>).map((event) => event.text),
      ['A', 'reply A', 'B', 'reply B', 'C', 'reply C', 'D', 'reply D'],
    );
  });
});
