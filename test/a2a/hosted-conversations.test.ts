import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import type { RunFixture } from '../support/run-fixture.ts';
import { readAll } from '../support/sse-client.ts';
import { systemText, transcript } from '../sessions/session-support.ts';
import { collectStream, isMessage, rpcError, textMessage, textOf, type A2aPeer } from './a2a-support.ts';
import { hostedConcierge } from './hosted-concierge.ts';

const SYSTEM_PROMPT = 'You are the concierge. Answer briefly.';

describe(
  'hosted A2A endpoint: conversations, concurrency, failures and cancellation',
  { timeout: 120_000 },
  () => {
    const hosted = hostedConcierge({ systemPrompt: SYSTEM_PROMPT });
    const held = (text: string) => hosted.held(text);
    let fixture: RunFixture;
    let peer: A2aPeer;
    before(() => ({ fixture, peer } = hosted));

    const sessionsOfContext = async (contextId: string) => {
      const listed = await fixture.server.request(
        'GET',
        `${fixture.ws}/agent-sessions?metadata=${encodeURIComponent(`a2a.contextId:${contextId}`)}`,
        { headers: fixture.headers },
      );
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      return listed.body.sessions as Array<{ sessionId: string }>;
    };
    const runIdOf = (events: readonly StreamResponse[]) => {
      const first = events[0]?.payload;
      return first?.$case === 'task' ? (first.value.metadata?.svc?.runId as string) : undefined;
    };

    it("a second message in the same context sees the first exchange: the agent's prompt, then the earlier user and agent turns", async () => {
      fixture.fake.enqueue({ text: ['Paris.'] }, { text: ['About 2.1 million.'] });
      const first = await peer.client.sendMessage(textMessage('Capital of France?'));
      assert.ok(isMessage(first));
      assert.equal(textOf(first), 'Paris.');
      const second = await peer.client.sendMessage(textMessage('Its population?', first.contextId));
      assert.ok(isMessage(second));
      assert.equal(second.contextId, first.contextId);
      assert.equal(textOf(second), 'About 2.1 million.');
      assert.match(systemText(fixture.fake.requests[1]), /You are the concierge/);
      assert.deepEqual(transcript(fixture.fake.requests[1]), [
        'user: Capital of France?',
        'assistant: Paris.',
        'user: Its population?',
      ]);
    });

    it('a message without contextId opens a new session: a second conversation does not see the first', async () => {
      fixture.fake.enqueue({ text: ['one'] }, { text: ['two'] });
      const first = await peer.client.sendMessage(textMessage('first conversation'));
      const second = await peer.client.sendMessage(textMessage('second conversation'));
      assert.ok(isMessage(first) && isMessage(second));
      assert.notEqual(first.contextId, second.contextId);
      assert.deepEqual(transcript(fixture.fake.requests[1]), ['user: second conversation']);
      assert.equal((await sessionsOfContext(first.contextId)).length, 1);
      assert.equal((await sessionsOfContext(second.contextId)).length, 1);
    });

    it('an unknown contextId minted by the peer opens a session bound to it; the reply carries it and the next message continues it', async () => {
      fixture.fake.enqueue({ text: ['Noted.'] }, { text: ['You told me: blue.'] });
      const contextId = `peer-minted-${crypto.randomUUID()}`;
      const first = await peer.client.sendMessage(textMessage('My colour is blue.', contextId));
      assert.ok(isMessage(first));
      assert.equal(first.contextId, contextId);
      await peer.client.sendMessage(textMessage('What is my colour?', contextId));
      assert.deepEqual(transcript(fixture.fake.requests[1]), [
        'user: My colour is blue.',
        'assistant: Noted.',
        'user: What is my colour?',
      ]);
      assert.equal((await sessionsOfContext(contextId)).length, 1);
    });

    it('concurrent first messages of one new context bind one session: each is answered or refused as busy, never a second session', async () => {
      const contextId = `race-${crypto.randomUUID()}`;
      fixture.fake.enqueue({ text: ['answered'] });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 6 }, (_, index) =>
          peer.client.sendMessage(textMessage(`message ${index}`, contextId)),
        ),
      );
      const answered = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      assert.ok(answered.length >= 1, 'at least one message was answered');
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') {
          const { code, data } = await rpcError(Promise.reject(outcome.reason));
          assert.equal(code, -32041);
          assert.equal(data.error, 'session_busy');
        }
      }
      assert.equal((await sessionsOfContext(contextId)).length, 1);
    });

    it('a message while the context has a run in flight is a JSON-RPC error (-32041 session_busy) at once, not a hang', async () => {
      const hold = held('slow answer');
      const contextId = `busy-${crypto.randomUUID()}`;
      const first = peer.client.sendMessage(textMessage('take your time', contextId));
      await fixture.fake.waitForRequests(1);
      const busy = await rpcError(peer.client.sendMessage(textMessage('are you there?', contextId)));
      assert.equal(busy.code, -32041);
      assert.equal(busy.data.error, 'session_busy');
      assert.match(busy.message, /in progress/);
      hold.resolve();
      const reply = await first;
      assert.ok(isMessage(reply));
      assert.equal(textOf(reply), 'slow answer');
    });

    it('a run that ends with error is a JSON-RPC error (-32042) with data { runId, errorClass }, not a result; the run is failed', async () => {
      fixture.fake.enqueue({ type: 'http-error', status: 400, message: 'the request is malformed' });
      const failed = await rpcError(peer.client.sendMessage(textMessage('break please')));
      assert.equal(failed.code, -32042);
      assert.match(failed.message, /failed/);
      assert.equal(failed.data.error, 'run_failed');
      assert.equal(failed.data.errorClass, 'invalid_request');
      assert.match(failed.data.runId, /^run_/);
      const snapshot = await fixture.server.request('GET', `${fixture.ws}/agent-runs/${failed.data.runId}`, {
        headers: fixture.headers,
      });
      assert.equal(snapshot.body.status, 'failed');
    });

    it('a streamed run that ends with error ends its task failed (final), with the run and errorClass in the event metadata', async () => {
      fixture.fake.enqueue({ type: 'http-error', status: 400, message: 'the request is malformed' });
      const events = await collectStream(peer.client.sendMessageStream(textMessage('break the stream')));
      const final = events.at(-1)?.payload;
      assert.ok(final?.$case === 'statusUpdate');
      assert.equal(final.value.status?.state, TaskState.TASK_STATE_FAILED);
      assert.match(textOf(final.value.status?.message), /failed/);
      assert.equal(final.value.metadata?.errorClass, 'invalid_request');
      assert.equal(final.value.metadata?.runId, runIdOf(events));
    });

    it('tasks/cancel cancels the run of a streamed task: the task comes back canceled, the stream ends canceled, the run is cancelled', async () => {
      held('never finished');
      const stream = peer.client.sendMessageStream(textMessage('a long job'));
      const first = await stream.next();
      assert.ok(!first.done && first.value.payload?.$case === 'task');
      const task = first.value.payload.value;
      await fixture.fake.waitForRequests(1);
      const cancelled = await peer.client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      assert.equal(cancelled.status?.state, TaskState.TASK_STATE_CANCELED);
      const rest = await collectStream(stream);
      const final = rest.at(-1)?.payload;
      assert.ok(final?.$case === 'statusUpdate');
      assert.equal(final.value.status?.state, TaskState.TASK_STATE_CANCELED);
      const runId = task.metadata?.svc?.runId as string;
      const frames = await readAll(
        `${fixture.server.baseUrl}${fixture.ws}/agent-runs/${runId}/stream`,
        fixture.headers,
      );
      assert.equal(frames.at(-1)?.data.type, 'cancelled');
      const snapshot = await fixture.server.request('GET', `${fixture.ws}/agent-runs/${runId}`, {
        headers: fixture.headers,
      });
      assert.equal(snapshot.body.status, 'cancelled');
      const read = await peer.client.getTask({ tenant: '', id: task.id });
      assert.equal(read.status?.state, TaskState.TASK_STATE_CANCELED);
    });

    it('a message/send whose run is cancelled (through the runs API) is a JSON-RPC error (-32043) with the run id', async () => {
      held('never sent');
      const contextId = `cancel-${crypto.randomUUID()}`;
      const pending = rpcError(peer.client.sendMessage(textMessage('wait for me', contextId)));
      await fixture.fake.waitForRequests(1);
      const [session] = await sessionsOfContext(contextId);
      const detail = await fixture.server.request(
        'GET',
        `${fixture.ws}/agent-sessions/${session?.sessionId}`,
        {
          headers: fixture.headers,
        },
      );
      const runId = detail.body.activeRunId as string;
      await fixture.server.request('POST', `${fixture.ws}/agent-runs/${runId}/cancel`, {
        headers: fixture.headers,
      });
      const cancelled = await pending;
      assert.equal(cancelled.code, -32043);
      assert.equal(cancelled.data.error, 'run_cancelled');
      assert.equal(cancelled.data.runId, runId);
    });
  },
);
