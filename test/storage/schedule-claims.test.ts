import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ScheduleRepository } from '../../src/storage/repositories/schedule-repository.ts';
import { WorkspaceRepository } from '../../src/storage/repositories/workspace-repository.ts';
import { ENGINES, openTestStorage } from '../support/engines.ts';

const iso = (ms: number) => new Date(ms).toISOString();

for (const engine of ENGINES) {
  describe(`schedule claims on ${engine} (extensions §8: each scheduled time fires exactly once)`, () => {
    let storage: Awaited<ReturnType<typeof openTestStorage>>;
    let schedules: ScheduleRepository;
    let workspaceId: string;

    before(async () => {
      storage = await openTestStorage(engine);
      schedules = new ScheduleRepository(storage.db);
      const workspace = await new WorkspaceRepository(storage.db).create({
        slug: 'claims',
        name: 'claims',
        features: { apiKeys: true, oauthApps: true },
        rateLimits: {},
        maxConcurrentRuns: 10,
      });
      workspaceId = workspace.id;
    });
    after(() => storage.drop());

    const newSchedule = (nextRunAt: string) =>
      schedules.create({
        workspaceId,
        apiKeyId: 'key_x',
        agentId: 'agt_x',
        cron: '* * * * * *',
        timezone: 'UTC',
        input: { prompt: 'p' },
        sessionId: null,
        metadata: {},
        enabled: true,
        nextRunAt,
      });

    it('twenty concurrent claims of one time: exactly one wins and records the fire; the schedule moves on once', async () => {
      const due = iso(Date.now() - 500);
      const next = iso(Date.now() + 500);
      const schedule = await newSchedule(due);
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          schedules.advance(schedule.id, due, next, {
            runId: `run_${index}`,
            leaseUntil: iso(Date.now() + 15_000),
            now: iso(Date.now()),
          }),
        ),
      );
      assert.equal(claims.filter((claim) => claim !== undefined).length, 1);
      assert.equal((await schedules.findById(schedule.id))?.nextRunAt, next);
      const inFlight = await schedules.hasFireInFlight(schedule.id, iso(Date.now()));
      assert.equal(inFlight, true);
    });

    it('a time already recorded is not claimed again, and the failed claim leaves the schedule where it was', async () => {
      const due = iso(Date.now() - 1_000);
      const schedule = await newSchedule(due);
      const fire = { runId: 'run_a', leaseUntil: iso(Date.now() + 15_000), now: iso(Date.now()) };
      assert.ok(await schedules.advance(schedule.id, due, iso(Date.now() + 1_000), fire));
      // As if the schedule were put back on the same time (a PATCH racing a claim): the row refuses it.
      await schedules.update(workspaceId, schedule.id, { nextRunAt: due });
      assert.equal(
        await schedules.advance(schedule.id, due, iso(Date.now() + 2_000), { ...fire, runId: 'run_b' }),
        undefined,
      );
      assert.equal((await schedules.findById(schedule.id))?.nextRunAt, due);
    });

    it('a claim whose lease ended is taken over once, with its reserved run id; the old holder can no longer settle it', async () => {
      const due = iso(Date.now() - 2_000);
      const schedule = await newSchedule(due);
      const lapsed = iso(Date.now() - 1);
      await schedules.advance(schedule.id, due, iso(Date.now() + 5_000), {
        runId: 'run_kept',
        leaseUntil: lapsed,
        now: due,
      });
      const takeovers = await Promise.all(
        Array.from({ length: 5 }, () =>
          schedules.takeOverAbandoned(iso(Date.now()), iso(Date.now() + 15_000)),
        ),
      );
      const taken = takeovers.filter((fire) => fire?.scheduleId === schedule.id);
      assert.equal(taken.length, 1);
      assert.equal(taken[0]!.runId, 'run_kept');
      const old = { scheduleId: schedule.id, scheduledFor: due, runId: 'run_kept', leaseUntil: lapsed };
      assert.equal(
        await schedules.settleFire(old, { status: 'fired', error: null, now: iso(Date.now()) }),
        false,
      );
      assert.equal(
        await schedules.settleFire(taken[0]!, { status: 'fired', error: null, now: iso(Date.now()) }),
        true,
      );
      const runs = await schedules.runs(schedule.id, 10, undefined);
      assert.deepEqual(
        runs.map((run) => run.runId),
        ['run_kept'],
      );
      assert.equal((await schedules.findById(schedule.id))?.lastRunId, 'run_kept');
    });
  });
}
