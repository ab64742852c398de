import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import {
  a2aPeer,
  collectStream,
  endpointPath,
  textMessage,
  textOf,
  type A2aPeer,
} from '../a2a/a2a-support.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { readAll } from '../support/sse-client.ts';
import { deferred } from '../support/waits.ts';
import { provisionAcme, startCluster, type Cluster } from './cluster.ts';

/**
 * Extensions §10 on several API replicas: a streamed task is stored (migration 0021), so GetTask,
 * SubscribeToTask and CancelTask answer on a replica other than the one serving the stream, and a
 * task whose replica died is still brought to its end from its run's event log.
 */
describe('scale-out: hosted A2A tasks read, followed and cancelled from another API replica', () => {
  let cluster: Cluster;
  let fake: FakeProviderServer;
  let headers: Record<string, string>;
  /** A reply held until the test resolves it (or `fake.reset` lets it go on, after a failed test). */
  const held = (text: string) => {
    const hold = deferred();
    fake.enqueue({ text: [text], holdUntil: hold.promise });
    return hold;
  };
  const api = (index: number) => cluster.apis[index]?.baseUrl ?? '';
  const peerOn = (index: number, version: '0.3' | '1.0' = '1.0'): Promise<A2aPeer> =>
    a2aPeer(`${api(index)}${endpointPath('acme', 'concierge')}`, headers, version);

  before(async () => {
    fake = await startFakeAnthropic();
    cluster = await startCluster({ apis: 3, workers: 1 });
    headers = { authorization: `Bearer ${await provisionAcme(api(0), cluster.adminToken, fake.url)}` };
    const created = await fetch(`${api(0)}/admin/v1/workspaces/acme/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cluster.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Concierge', systemPrompt: 'You are the concierge.' }),
    });
    assert.equal(created.status, 201, await created.text());
  });
  afterEach(() => fake.reset());
  after(async () => {
    await cluster?.stop();
    await fake?.close();
  });

  for (const version of ['1.0', '0.3'] as const) {
    it(`${version}: a task streamed on API 1 is read (GetTask) and followed (SubscribeToTask) on API 2 to its COMPLETED end`, async () => {
      const [serving, other] = [await peerOn(0, version), await peerOn(1, version)];
      const hold = held('Answered across replicas.');
      const stream = serving.client.sendMessageStream(textMessage('a long job'));
      const first = await stream.next();
      assert.ok(!first.done && first.value.payload?.$case === 'task');
      const task = first.value.payload.value;
      await fake.waitForRequests(1);

      const read = await other.client.getTask({ tenant: '', id: task.id, historyLength: undefined });
      assert.equal(read.status?.state, TaskState.TASK_STATE_WORKING);
      assert.equal(read.contextId, task.contextId);

      const subscription = other.client.resubscribeTask({ tenant: '', id: task.id });
      const joined = await subscription.next();
      assert.ok(!joined.done && joined.value.payload?.$case === 'task');
      hold.resolve();
      const events = await collectStream(subscription);
      const final = events.at(-1)?.payload;
      assert.ok(final?.$case === 'statusUpdate');
      assert.equal(final.value.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(textOf(final.value.status?.message), 'Answered across replicas.');
      assert.equal((final.value.status?.message?.metadata?.svc as { turns: number }).turns, 1);
      const deltas = events.flatMap((event) =>
        event.payload?.$case === 'artifactUpdate' ? [textOf(event.payload.value.artifact as never)] : [],
      );
      assert.equal(deltas.join(''), 'Answered across replicas.');
      await collectStream(stream);

      const done = await other.client.getTask({ tenant: '', id: task.id, historyLength: undefined });
      assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
    });

    it(`${version}: CancelTask on API 2 cancels the run of a task streamed on API 1; both see it CANCELED`, async () => {
      const [serving, other] = [await peerOn(0, version), await peerOn(1, version)];
      held('never finished');
      const stream = serving.client.sendMessageStream(textMessage('cancel me elsewhere'));
      const first = await stream.next();
      assert.ok(!first.done && first.value.payload?.$case === 'task');
      const task = first.value.payload.value;
      await fake.waitForRequests(1);
      const cancelled = await other.client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      assert.equal(cancelled.status?.state, TaskState.TASK_STATE_CANCELED);
      const rest = await collectStream(stream);
      const final = rest.at(-1)?.payload;
      assert.ok(final?.$case === 'statusUpdate');
      assert.equal(final.value.status?.state, TaskState.TASK_STATE_CANCELED);
      const readOnServing = await serving.client.getTask({
        tenant: '',
        id: task.id,
        historyLength: undefined,
      });
      assert.equal(readOnServing.status?.state, TaskState.TASK_STATE_CANCELED);
    });
  }

  it('the replica serving a stream dies: the run goes on, and GetTask on another replica finds the task COMPLETED from the run log', async () => {
    const doomed = cluster.apis[2]!;
    const [serving, other] = [await peerOn(2), await peerOn(1)];
    const hold = held('Finished without its replica.');
    const stream = serving.client.sendMessageStream(textMessage('outlive your replica'));
    const first = await stream.next();
    assert.ok(!first.done && first.value.payload?.$case === 'task');
    const task = first.value.payload.value;
    await fake.waitForRequests(1);
    await doomed.kill('SIGKILL');
    await collectStream(stream).catch(() => []);
    hold.resolve();
    const runId = task.metadata?.svc?.runId as string;
    // The run ends on the worker; the replica asked reads its end from the log.
    const frames = await readAll(`${api(1)}/api/v1/workspaces/acme/agent-runs/${runId}/stream`, headers);
    assert.equal(frames.at(-1)?.data.type, 'result');
    const read = await other.client.getTask({ tenant: '', id: task.id, historyLength: undefined });
    assert.equal(read.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(textOf(read.status?.message), 'Finished without its replica.');
  });
});
