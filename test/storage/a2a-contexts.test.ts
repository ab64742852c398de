import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/domain/ids.ts';
import { A2aContextRepository } from '../../src/storage/repositories/a2a-context-repository.ts';
import { AgentRepository } from '../../src/storage/repositories/agent-repository.ts';
import { WorkspaceRepository } from '../../src/storage/repositories/workspace-repository.ts';
import { ENGINES, openTestStorage } from '../support/engines.ts';

for (const engine of ENGINES) {
  describe(`A2A contexts of hosted agents on ${engine}`, () => {
    let storage: Awaited<ReturnType<typeof openTestStorage>>;
    let contexts: A2aContextRepository;
    let workspaces: WorkspaceRepository;
    let agents: AgentRepository;

    before(async () => {
      storage = await openTestStorage(engine);
      contexts = new A2aContextRepository(storage.db);
      workspaces = new WorkspaceRepository(storage.db);
      agents = new AgentRepository(storage.db);
    });
    after(() => storage.drop());

    /** A workspace with two agents (contexts reference both). */
    const newScope = async (slug: string) => {
      const workspace = await workspaces.create({
        slug,
        name: slug,
        features: { apiKeys: true, oauthApps: true },
        rateLimits: {},
        maxConcurrentRuns: 10,
      });
      const agent = (name: string) =>
        agents.create({
          workspaceId: workspace.id,
          slug: name,
          name,
          systemPrompt: 's',
          modelId: null,
          useWorkspaceDefaultModel: true,
          reasoningLevel: null,
          tools: [],
          isSystem: false,
        });
      return {
        workspaceId: workspace.id,
        first: (await agent('first')).id,
        second: (await agent('second')).id,
      };
    };

    it('an unbound context has no session; binding it returns the session, and find returns it after', async () => {
      const scope = await newScope('bind-find');
      assert.equal(await contexts.find(scope.workspaceId, scope.first, 'ctx-1'), undefined);
      const sessionId = newId('session');
      assert.equal(await contexts.bind(scope.workspaceId, scope.first, 'ctx-1', sessionId), sessionId);
      assert.equal(await contexts.find(scope.workspaceId, scope.first, 'ctx-1'), sessionId);
    });

    it('the first binding wins: binding a bound context again returns its session, not the new one', async () => {
      const scope = await newScope('first-wins');
      const winner = newId('session');
      await contexts.bind(scope.workspaceId, scope.first, 'ctx', winner);
      assert.equal(await contexts.bind(scope.workspaceId, scope.first, 'ctx', newId('session')), winner);
    });

    it('concurrent first bindings of one context all return the same session', async () => {
      const scope = await newScope('concurrent');
      const candidates = Array.from({ length: 8 }, () => newId('session'));
      const bound = await Promise.all(
        candidates.map((sessionId) => contexts.bind(scope.workspaceId, scope.first, 'ctx-race', sessionId)),
      );
      assert.equal(new Set(bound).size, 1);
      assert.ok(candidates.includes(bound[0]!));
    });

    it('the key is (workspace, agent, contextId): the same contextId of another agent or workspace is another conversation', async () => {
      const one = await newScope('scope-one');
      const two = await newScope('scope-two');
      const a = await contexts.bind(one.workspaceId, one.first, 'shared', newId('session'));
      const b = await contexts.bind(one.workspaceId, one.second, 'shared', newId('session'));
      const c = await contexts.bind(two.workspaceId, two.first, 'shared', newId('session'));
      assert.equal(new Set([a, b, c]).size, 3);
      assert.equal(await contexts.find(two.workspaceId, one.first, 'shared'), undefined);
    });

    it('deleting the agent forgets its contexts', async () => {
      const scope = await newScope('agent-deleted');
      await contexts.bind(scope.workspaceId, scope.first, 'ctx', newId('session'));
      assert.equal(await agents.delete(scope.workspaceId, scope.first), true);
      assert.equal(await contexts.find(scope.workspaceId, scope.first, 'ctx'), undefined);
    });
  });
}
