import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { embeddedOnly } from '../support/deployment.ts';
import { startScheduleFixture, type ScheduleFixture } from './schedule-fixture.ts';

const EVERY_2_S = '*/2 * * * * *';
const EVERY_SECOND = '* * * * * *';

/** Runs of the workspace created by schedule `scheduleId` (the runs list's metadata filter). */
async function runsTagged(f: ScheduleFixture, scheduleId: string): Promise<Array<{ runId: string }>> {
  const listed = await f.api(
    'GET',
    `/agent-runs?limit=100&metadata=${encodeURIComponent(`scheduleId:${scheduleId}`)}`,
  );
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  return listed.body.runs ?? listed.body.data;
}

describe('schedule fires (extensions §8)', () => {
  let f: ScheduleFixture;

  before(async () => {
    f = await startScheduleFixture('sched-fires');
  });
  after(() => f.close());

  it('a schedule every 2 s creates one run per scheduled time, as POST agent-runs with agentId would; metadata is the schedule’s plus scheduleId', async () => {
    const schedule = await f.schedule({
      cron: EVERY_2_S,
      prompt: 'status report',
      metadata: { team: 'ops' },
    });
    const runs = (await f.runsReach(schedule.id, 3)).slice(0, 3);
    const times = runs.map((run) => Date.parse(run.scheduledFor));
    assert.deepEqual(
      times.slice(1).map((time, i) => time - times[i]!),
      [2000, 2000],
      'consecutive scheduled times, each once',
    );
    assert.equal(new Set(runs.map((run) => run.runId)).size, 3);
    for (const entry of runs) {
      const run = await f.api('GET', `/agent-runs/${entry.runId}`);
      assert.equal(run.status, 200);
      assert.deepEqual(run.body.metadata, { team: 'ops', scheduleId: schedule.id });
      assert.equal(run.body.agentId, f.agentId);
      assert.ok(Date.parse(entry.createdAt) >= Date.parse(entry.scheduledFor));
    }
    const read = await f.api('GET', `/schedules/${schedule.id}`);
    assert.ok(read.body.lastRunId !== null && read.body.lastRunAt !== null);
    assert.ok(Date.parse(read.body.nextRunAt) > times[2]!);
    // Newest first, paged by cursor.
    const page = await f.api('GET', `/schedules/${schedule.id}/runs?limit=1`);
    assert.equal(page.body.runs.length, 1);
    assert.equal(typeof page.body.nextCursor, 'string');
    const second = await f.api(
      'GET',
      `/schedules/${schedule.id}/runs?limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`,
    );
    assert.ok(Date.parse(second.body.runs[0].scheduledFor) < Date.parse(page.body.runs[0].scheduledFor));
    await f.api('DELETE', `/schedules/${schedule.id}`);
  });

  it(
    'agent_runs_scheduled_runs_total counts the runs schedules created (extensions §2)',
    embeddedOnly('the worker process counts the runs it fires, on its own /metrics'),
    async () => {
      const schedule = await f.schedule({ cron: EVERY_SECOND, prompt: 'counted' });
      await f.runsReach(schedule.id, 2);
      await f.api('DELETE', `/schedules/${schedule.id}`);
      const metrics = await fetch(`${f.server.baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${f.server.adminToken}` },
      });
      const counted = /^agent_runs_scheduled_runs_total (\d+)/m.exec(await metrics.text());
      assert.ok(Number(counted?.[1]) >= 2, `counted: ${counted?.[1]}`);
    },
  );

  it('a disabled schedule does not fire, while an enabled one beside it fires', async () => {
    const disabled = await f.schedule({ cron: EVERY_SECOND, prompt: 'p', enabled: false });
    const enabled = await f.schedule({ cron: EVERY_SECOND, prompt: 'p' });
    await f.runsReach(enabled.id, 3);
    assert.deepEqual(await f.runsOf(disabled.id), []);
    assert.equal((await runsTagged(f, disabled.id)).length, 0);
    const paused = await f.api('PATCH', `/schedules/${enabled.id}`, { enabled: false });
    const firedBeforePause = (await f.runsOf(enabled.id)).length;
    // A third schedule as the clock: three of its times pass.
    const clock = await f.schedule({ cron: EVERY_SECOND, prompt: 'p' });
    await f.runsReach(clock.id, 3);
    assert.equal(paused.body.nextRunAt, null);
    assert.ok(
      (await f.runsOf(enabled.id)).length <= firedBeforePause + 1,
      'at most a fire claimed before the PATCH',
    );
    for (const id of [disabled.id, enabled.id, clock.id]) await f.api('DELETE', `/schedules/${id}`);
  });

  it('DELETE: no run is created for the schedule after the answer', async () => {
    const schedule = await f.schedule({ cron: EVERY_SECOND, prompt: 'p' });
    await f.runsReach(schedule.id, 2);
    const deleted = await f.api('DELETE', `/schedules/${schedule.id}`);
    assert.equal(deleted.status, 204);
    const countAtAnswer = (await runsTagged(f, schedule.id)).length;
    const clock = await f.schedule({ cron: EVERY_SECOND, prompt: 'p' });
    await f.runsReach(clock.id, 3);
    assert.equal((await runsTagged(f, schedule.id)).length, countAtAnswer);
    await f.api('DELETE', `/schedules/${clock.id}`);
  });

  it('a time that passed while no process could fire it: fired late if less than 60 s late, else skipped', async () => {
    const schedule = await f.schedule({ cron: '*/10 * * * * *', prompt: 'p', enabled: false });
    // No process fired this schedule for 90 s: as if every firing process had been down since then.
    const now = Date.now();
    const downSince = new Date(Math.floor((now - 90_000) / 10_000) * 10_000).toISOString();
    await sql`update schedules set enabled = 1, next_run_at = ${downSince} where id = ${schedule.id}`.execute(
      f.server.service.resources.storage.db,
    );
    const runs = await f.runsReach(schedule.id, 5);
    const times = runs.map((run) => Date.parse(run.scheduledFor));
    assert.ok(
      times[0]! > now - 60_000 - 1_000,
      `no time 60 s or more late fired (first ${runs[0]!.scheduledFor})`,
    );
    assert.ok(
      times[0]! <= now - 40_000,
      `the times less than 60 s late fired late (first ${runs[0]!.scheduledFor})`,
    );
    assert.deepEqual(
      times.slice(1).map((time, i) => time - times[i]!),
      times.slice(1).map(() => 10_000),
      'each time from then on, once',
    );
    await f.api('DELETE', `/schedules/${schedule.id}`);
  });

  it('the fires are run starts of the schedule’s API key: its run_start limit applies to them and to its requests alike', async () => {
    const limited = await startScheduleFixture('sched-limit', { workspace: { rateLimits: { runStart: 2 } } });
    try {
      const schedule = await limited.schedule({ cron: EVERY_SECOND, prompt: 'p' });
      await limited.runsReach(schedule.id, 2);
      const created = Date.parse(schedule.createdAt);
      // Four more times pass; none of them makes a run.
      const { eventually } = await import('../support/waits.ts');
      await eventually(
        async () =>
          Date.parse((await limited.api('GET', `/schedules/${schedule.id}`)).body.nextRunAt) >
          created + 6_000,
        'six times of the schedule passed',
        { intervalMs: 200 },
      );
      assert.equal((await limited.runsOf(schedule.id)).length, 2);
      const byRequest = await limited.api('POST', '/agent-runs', { agentId: limited.agentId, prompt: 'p' });
      assert.equal(byRequest.status, 429);
      assert.equal(byRequest.body.error, 'rate_limit_exceeded');
    } finally {
      await limited.close();
    }
  });
});

describe('schedule fires into a session (extensions §8 with §6 ifBusy: enqueue)', () => {
  let f: ScheduleFixture;

  before(async () => {
    f = await startScheduleFixture('sched-session');
  });
  after(() => f.close());

  it('with sessionId each time is a message run of the session, queued behind a run still going (ifBusy: enqueue), none refused', async () => {
    const { eventually } = await import('../support/waits.ts');
    await f.server.admin('POST', '/offerings', { provider: 'mock', vendorModelId: 'slow-echo' });
    const slow = await f.server.admin('POST', '/workspaces/sched-session/agents', {
      name: 'Slow',
      systemPrompt: 's',
      modelId: 'mock/slow-echo',
    });
    assert.equal(slow.status, 201, JSON.stringify(slow.body));
    const session = await f.api('POST', '/agent-sessions', { agentId: slow.body.id });
    assert.equal(session.status, 201, JSON.stringify(session.body));
    // About 60 chunks of 20 ms: each run outlasts the second between two times.
    const prompt = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    const schedule = await f.schedule({
      agentId: slow.body.id,
      cron: EVERY_SECOND,
      prompt,
      sessionId: session.body.sessionId,
    });
    assert.equal(schedule.sessionId, session.body.sessionId);
    const fired = await f.runsReach(schedule.id, 4);
    const times = fired.slice(0, 4).map((run) => Date.parse(run.scheduledFor));
    // A time whose message had been refused as busy would be missing here.
    assert.deepEqual(
      times.slice(1).map((time, i) => time - times[i]!),
      [1000, 1000, 1000],
    );
    assert.equal((await f.api('DELETE', `/schedules/${schedule.id}`)).status, 204);
    const runs = await f.runsOf(schedule.id).catch(() => fired);
    const statuses = new Map<string, string>();
    await eventually(
      async () => {
        for (const { runId } of fired) {
          const run = await f.api('GET', `/agent-runs/${runId}`);
          assert.equal(run.body.sessionId, session.body.sessionId);
          statuses.set(runId, run.body.status);
        }
        return [...statuses.values()].every((status) => status === 'succeeded');
      },
      'every fired session run succeeded',
      { intervalMs: 200 },
    );
    assert.ok(runs.length >= 4);
  });
});
