import assert from 'node:assert/strict';
import { it } from 'node:test';
import pino from 'pino';
import { RunDispatcher } from '../../src/engine/lifecycle/run-dispatcher.ts';
import type { RunJob } from '../../src/engine/ports.ts';
import { InProcessRunQueue } from '../../src/infra/in-process-queue.ts';
import { createTestWorkspace, describeOnEachEngine } from '../support/storage-suite.ts';
import { storedRunInput } from '../storage/stored-run-spec.ts';

/** Far longer than the test waits: only the sweep's own timer can wake the run in time. */
const SWEEP_INTERVAL_MS = 600_000;
const WAIT_CAP_MS = 60_000;

describeOnEachEngine('dispatch sweep', ({ repos }) => {
  it('a run parked by a process that is gone wakes at its deadline, not at the next sweep: the sweep sets a timer for runs due before it runs again', async () => {
    const ws = await createTestWorkspace(repos.workspaces, 'orphan-park');
    const created = await repos.runs.createAdmitting(storedRunInput(ws.id));
    const claimed = await repos.runs.claimAttempt(created.run.id, 1);
    assert.ok(claimed);
    // Parked with no timer anywhere, as when the parking worker is killed right after the park.
    const wakeAt = Date.now() + 1_500;
    assert.equal(
      await repos.dispatch.park(created.run.id, claimed.attempt, new Date(wakeAt).toISOString()),
      true,
    );

    const queue = new InProcessRunQueue({ concurrency: 1 });
    const queued = new Promise<RunJob>((resolve) =>
      queue.consume(async (job) => {
        resolve(job);
        return 'done';
      }),
    );
    const dispatcher = new RunDispatcher({
      dispatch: repos.dispatch,
      queue,
      logger: pino({ level: 'silent' }),
    });
    dispatcher.start(SWEEP_INTERVAL_MS);
    try {
      let capTimer: NodeJS.Timeout | undefined;
      const cap = new Promise<never>((_, reject) => {
        capTimer = setTimeout(() => reject(new Error('the parked run was not woken')), WAIT_CAP_MS);
      });
      const job = await Promise.race([queued, cap]).finally(() => clearTimeout(capTimer));
      assert.equal(job.runId, created.run.id);
      assert.ok(Date.now() >= wakeAt, 'not before its deadline');
    } finally {
      await dispatcher.close();
      await queue.close();
    }
  });
});
