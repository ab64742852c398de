import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeMigrationOnEachEngine } from '../support/migration-suite.ts';
import { STORED_RUN_SPEC } from './stored-run-spec.ts';

const BEFORE = '0011-oauth-code-reuse-and-app-tokens';
const RENAMED = '0012-checkpoint-schedule';

const CALL = { id: 'call_1', name: 'lookup', input: { plan: 'a tool input may say plan', b: 1, a: 2 } };

/** A checkpoint as stored before 0012; its conversation names `plan` too, and holds a NUL. */
function storedState(round: { plan?: unknown[] }) {
  return {
    messages: [{ role: 'tool', content: [{ type: 'text', text: 'binary\u0000output "plan": no' }] }],
    tokens: { inputTokens: 3, cachedTokens: 0, reasoningTokens: 0, outputTokens: 2 },
    turns: 1,
    lastText: '',
    retained: [],
    controls: { plan: { steps: ['a control state named plan stays'] } },
    pendingRound: {
      turn: 0,
      toolCalls: [CALL],
      assistantMessage: { text: '', turn: 0, finishReason: 'tool-calls', toolCalls: [CALL] },
      ...round,
      offeredHostTools: ['host_tool'],
    },
  };
}

const SCHEDULE = [
  { call: CALL, execute: { family: 'client', args: CALL.input } },
  {
    call: { ...CALL, id: 'call_2' },
    answer: { output: { type: 'error-text', value: 'no' }, intercepted: true },
  },
];

// The rows are written by today's repositories, on today's schema; the tests then go back.
describeMigrationOnEachEngine(
  "migration 0012: a checkpoint's pending round keeps its schedule as `schedule`",
  'latest',
  ({ storage, repos, migrateTo }) => {
    const storedText = async (runId: string) =>
      (
        await storage.db
          .selectFrom('run_checkpoints')
          .select('state')
          .where('run_id', '=', runId)
          .executeTakeFirstOrThrow()
      ).state;
    const newRun = (workspaceId: string) =>
      repos.runs.create({
        workspaceId,
        agentId: null,
        sessionId: null,
        apiKeyId: null,
        spec: STORED_RUN_SPEC,
        metadata: {},
      });

    it('renames `pendingRound.plan` (every batch), leaves a checkpoint without it as it is, and down renames it back', async () => {
      const ws = await repos.workspaces.create({
        slug: 'checkpoints',
        name: 'checkpoints',
        features: { apiKeys: true, oauthApps: true },
        rateLimits: {},
        maxConcurrentRuns: 100,
      });
      const scheduled = await newRun(ws.id);
      const unscheduled = await newRun(ws.id);
      const withPlan = storedState({ plan: SCHEDULE });
      const withoutPlan = storedState({});
      assert.equal(await repos.checkpoints.save(scheduled.id, 7, withPlan), true);
      assert.equal(await repos.checkpoints.save(unscheduled.id, 4, withoutPlan), true);
      // More checkpoints than one PostgreSQL batch rewrites.
      const others: string[] = [];
      for (let index = 0; index < 210; index++) {
        const run = await newRun(ws.id);
        await repos.checkpoints.save(run.id, index + 1, storedState({ plan: [SCHEDULE[0]] }));
        others.push(run.id);
      }
      await migrateTo(BEFORE);
      const unscheduledText = await storedText(unscheduled.id);

      await migrateTo(RENAMED);
      const { plan, ...round } = withPlan.pendingRound;
      assert.deepEqual(await repos.checkpoints.load(scheduled.id), {
        seq: 7,
        state: { ...withPlan, pendingRound: { ...round, schedule: plan } },
      });
      assert.equal(await storedText(unscheduled.id), unscheduledText);
      for (const runId of others) {
        const loaded = await repos.checkpoints.load<typeof withPlan>(runId);
        assert.deepEqual(loaded?.state.pendingRound, { ...round, schedule: [SCHEDULE[0]] }, runId);
      }

      await migrateTo(BEFORE);
      assert.deepEqual(await repos.checkpoints.load(scheduled.id), { seq: 7, state: withPlan });
      assert.equal(await storedText(unscheduled.id), unscheduledText);
      for (const runId of others) {
        const loaded = await repos.checkpoints.load<typeof withPlan>(runId);
        assert.deepEqual(loaded?.state.pendingRound, { ...round, plan: [SCHEDULE[0]] }, runId);
      }
    });
  },
);
