import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { A2aTaskRepository } from '../../src/storage/repositories/a2a-task-repository.ts';
import { AgentRepository } from '../../src/storage/repositories/agent-repository.ts';
import { WorkspaceRepository } from '../../src/storage/repositories/workspace-repository.ts';
import { ENGINES, openTestStorage } from '../support/engines.ts';

for (const engine of ENGINES) {
  describe(`A2A tasks of hosted agents (migration 0021) on ${engine}`, () => {
    let storage: Awaited<ReturnType<typeof openTestStorage>>;
    let tasks: A2aTaskRepository;
    let scope: { workspaceId: string; first: string; second: string };

    before(async () => {
      storage = await openTestStorage(engine);
      tasks = new A2aTaskRepository(storage.db);
      const workspace = await new WorkspaceRepository(storage.db).create({
        slug: 'tasks',
        name: 'tasks',
        features: { apiKeys: true, oauthApps: true },
        rateLimits: {},
        maxConcurrentRuns: 10,
      });
      const agents = new AgentRepository(storage.db);
      const agent = async (name: string) =>
        (
          await agents.create({
            workspaceId: workspace.id,
            slug: name,
            name,
            systemPrompt: 's',
            modelId: null,
            useWorkspaceDefaultModel: true,
            reasoningLevel: null,
            tools: [],
            isSystem: false,
          })
        ).id;
      scope = { workspaceId: workspace.id, first: await agent('first'), second: await agent('second') };
    });
    after(() => storage.drop());

    const saved = (
      taskId: string,
      state: string,
      updatedAt: string,
      runId: string | undefined = 'run_1',
    ) => ({
      workspaceId: scope.workspaceId,
      agentId: scope.first,
      taskId,
      contextId: 'ctx',
      runId,
      task: { id: taskId, status: { state } },
      updatedAt,
    });

    it('a saved task is found by its agent only; a save replaces it and keeps the run a later save does not know', async () => {
      await tasks.save(saved('t-1', 'TASK_STATE_WORKING', '2026-11-29T03:00:00.000Z'));
      await tasks.save(saved('t-1', 'TASK_STATE_COMPLETED', '2026-11-29T03:00:01.000Z', undefined));
      const found = await tasks.find(scope.workspaceId, scope.first, 't-1', '2026-11-29T02:00:00.000Z');
      assert.deepEqual(found?.task, { id: 't-1', status: { state: 'TASK_STATE_COMPLETED' } });
      assert.equal(found?.runId, 'run_1');
      assert.equal(
        await tasks.find(scope.workspaceId, scope.second, 't-1', '2026-11-29T02:00:00.000Z'),
        undefined,
      );
    });

    it('a task last changed before the cutoff is not found, and deleteUpdatedBefore forgets it', async () => {
      await tasks.save(saved('t-old', 'TASK_STATE_WORKING', '2026-11-29T01:00:00.000Z'));
      assert.equal(
        await tasks.find(scope.workspaceId, scope.first, 't-old', '2026-11-29T02:00:00.000Z'),
        undefined,
      );
      assert.ok((await tasks.deleteUpdatedBefore('2026-11-29T02:00:00.000Z')) >= 1);
      assert.equal(
        await tasks.find(scope.workspaceId, scope.first, 't-old', '2026-11-29T00:00:00.000Z'),
        undefined,
      );
    });
  });
}
