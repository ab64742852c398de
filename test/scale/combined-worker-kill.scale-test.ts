import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/waits.ts';
import { WebhookReceiver } from '../webhooks/webhook-receiver.ts';
import { gapsOf, provisionScheduling, scheduleRuns, type SchedulingWorkspace } from './schedule-cluster.ts';
import { startWorkerKillCluster, type WorkerKillCluster } from './worker-kill-cluster.ts';

const QUEUED = 3;
/** About 80 chunks of 20 ms on mock/slow-echo: each session run lasts well over a second. */
const longPrompt = (tag: string) => Array.from({ length: 80 }, (_, i) => `${tag}-${i}`).join(' ');

/**
 * Issue 29 item 5: a worker SIGKILLed while webhook deliveries are due, a schedule fires every second
 * and session runs wait in their session's queue. Nothing is lost and nothing doubled: every scheduled
 * time has one run, every queued session run runs once, every ended run has one delivery, delivered.
 */
describe('scale-out: a worker SIGKILLed with webhooks due, a schedule firing and session runs queued', () => {
  let setup: WorkerKillCluster;
  let receiver: WebhookReceiver;
  let acme: SchedulingWorkspace;
  const ws = () => setup.ws;
  const call = (method: string, path: string, body?: unknown) => setup.call(method, path, body);

  before(async () => {
    receiver = await new WebhookReceiver().start();
    setup = await startWorkerKillCluster({
      env: { AGENT_RUNS_WEBHOOK_RETRY_SCHEDULE: '4000,4000,4000', AGENT_RUNS_SCHEDULE_POLL_MS: '100' },
      provision: async (baseUrl, adminToken) => {
        acme = await provisionScheduling(baseUrl, adminToken);
        return acme.key;
      },
    });
  });
  after(async () => {
    await setup?.cluster.stop();
    await receiver?.close();
  });

  it('0 lost, 0 doubled: one run per scheduled time, each queued session run once, one delivery per ended run', async () => {
    const hook = await call('POST', '/webhooks', { url: `${receiver.url}/hook` });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    // The first attempt of each delivery fails: deliveries are due (retries 4 s later) when the kill lands.
    const seen = new Set<string>();
    receiver.answerWith('/hook', hook.body.secret, (attempt) => {
      const id = String(attempt?.headers['webhook-id']);
      if (seen.has(id)) return 200;
      seen.add(id);
      return 500;
    });

    const session = await call('POST', '/agent-sessions', { agentId: acme.slowAgentId });
    assert.equal(session.status, 201, JSON.stringify(session.body));
    const sessionId = session.body.sessionId as string;
    const prompts = Array.from({ length: QUEUED + 1 }, (_, i) => longPrompt(`m${i}`));
    const sessionRuns: string[] = [];
    for (const [index, prompt] of prompts.entries()) {
      const sent = await call('POST', `/agent-sessions/${sessionId}/messages`, {
        prompt,
        ...(index > 0 && { ifBusy: 'enqueue' }),
      });
      assert.equal(sent.status, 202, JSON.stringify(sent.body));
      sessionRuns.push(sent.body.runId);
    }

    const schedule = await call('POST', '/schedules', {
      agentId: acme.echoAgentId,
      cron: '* * * * * *',
      prompt: 'tick',
    });
    assert.equal(schedule.status, 201, JSON.stringify(schedule.body));
    const scheduleId = schedule.body.id as string;

    await eventually(
      async () =>
        (await scheduleRuns(ws(), setup.headers, scheduleId)).length >= 3 && receiver.at('/hook').length >= 2,
      'the schedule fired and first webhook attempts were answered 500',
      { intervalMs: 50 },
    );
    const queuedAtKill = await Promise.all(
      sessionRuns.slice(1).map(async (runId) => (await call('GET', `/agent-runs/${runId}`)).body.status),
    );
    assert.ok(
      queuedAtKill.includes('queued'),
      `session runs still queued at the kill: ${queuedAtKill.join(', ')}`,
    );
    assert.equal(await setup.cluster.workers[0]!.kill('SIGKILL'), null);
    const killedAt = Date.now();

    // Schedules: every time once, none missed, across the kill (a fire the dead worker had claimed is
    // finished by the other once its lease ends).
    let fired: Awaited<ReturnType<typeof scheduleRuns>> = [];
    await eventually(
      async () => {
        fired = await scheduleRuns(ws(), setup.headers, scheduleId);
        const last = Date.parse(fired.at(-1)?.scheduledFor ?? '');
        return last > killedAt + 20_000 && gapsOf(fired).every((gap) => gap === 1000);
      },
      'the schedule fired every second for 20 s past the kill, without a gap',
      { intervalMs: 500 },
    );
    assert.equal((await call('DELETE', `/schedules/${scheduleId}`)).status, 204);
    fired = await scheduleRuns(ws(), setup.headers, scheduleId).catch(() => fired);
    const tagged = await call(
      'GET',
      `/agent-runs?limit=100&metadata=${encodeURIComponent(`scheduleId:${scheduleId}`)}`,
    );
    const taggedIds = (tagged.body.runs as Array<{ runId: string }>).map((run) => run.runId).sort();
    // The runs list pages by 100: the test stays below it (about 25 s of fires).
    assert.ok(taggedIds.length < 100);

    // Session runs: each ran once, in order, none lost.
    await eventually(
      async () => {
        const statuses = await Promise.all(
          sessionRuns.map(async (runId) => (await call('GET', `/agent-runs/${runId}`)).body.status),
        );
        return statuses.every((status) => status === 'succeeded');
      },
      'every session run succeeded',
      { intervalMs: 200 },
    );
    const replay = await call('GET', `/agent-sessions/${sessionId}/events`);
    const frames = replay.body.events as Array<{ type: string; text: string }>;
    assert.deepEqual(
      frames.filter((frame) => frame.type === 'user_message').map((frame) => frame.text),
      prompts,
      'each queued message once, in the order accepted',
    );
    assert.equal(frames.filter((frame) => frame.type === 'assistant_message').length, prompts.length);

    // Webhooks: one delivery per ended run, every one delivered.
    const ended = [...new Set([...taggedIds, ...sessionRuns])].sort();
    let deliveries: Array<{ id: string; runId: string; status: string; attempts: number }> = [];
    await eventually(
      async () => {
        deliveries = (await call('GET', `/webhooks/${hook.body.id}/deliveries?limit=100`)).body.deliveries;
        return (
          deliveries.length >= ended.length && deliveries.every((delivery) => delivery.status === 'succeeded')
        );
      },
      `all ${ended.length} deliveries succeeded`,
      { intervalMs: 200 },
    );
    assert.equal(receiver.unverified.length, 0, receiver.unverified.join('; '));

    assert.deepEqual(
      gapsOf(fired),
      gapsOf(fired).map(() => 1000),
      'schedule: 0 lost',
    );
    assert.deepEqual(
      taggedIds,
      fired.map((run) => run.runId).sort(),
      'schedule: 0 doubled (one run per time)',
    );
    assert.deepEqual(
      deliveries.map((delivery) => delivery.runId).sort(),
      ended,
      'webhooks: one delivery per run',
    );
    // Every delivery was retried after its first attempt's 500. Counted at the receiver: an attempt
    // the killed worker made but had not recorded is not in the delivery's `attempts` (docs/webhooks.md).
    const attemptsById = new Map<string, number>();
    for (const attempt of receiver.at('/hook')) {
      const id = String(attempt.headers['webhook-id']);
      attemptsById.set(id, (attemptsById.get(id) ?? 0) + 1);
    }
    assert.deepEqual(
      deliveries.filter((delivery) => (attemptsById.get(delivery.id) ?? 0) < 2 || delivery.attempts < 1),
      [],
      'each delivery attempted at least twice at the receiver, and recorded',
    );
    assert.deepEqual(
      [...attemptsById.keys()].sort(),
      deliveries.map((delivery) => delivery.id).sort(),
      'webhooks: 0 lost',
    );
  });
});
