import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { type TestServer } from '../../support/test-server.ts';
import { assertError, assertInvalid, ULID } from '../admin-support.ts';

/** The admin API's agents cases, on the server of admin-api.test.ts. */
export function agentsCases(serverOf: () => TestServer): void {
  describe('agents', () => {
    let server: TestServer;
    before(() => {
      server = serverOf();
    });

    before(async () => {
      await server.admin('POST', '/workspaces', { slug: 'agents' });
      await server.admin('POST', '/workspaces/agents/providers', {
        provider: 'agent-llm',
        api: 'openai-chat',
        baseUrl: 'https://127.0.0.1:9/v1',
        models: [{ vendorModelId: 'fast' }],
      });
    });

    it('POST answers 201 { id, slug } with the slug derived from the name', async () => {
      const created = await server.admin('POST', '/workspaces/agents/agents', {
        name: 'Support Bot',
        systemPrompt: 'Be kind.',
      });
      assert.equal(created.status, 201);
      assert.deepEqual(Object.keys(created.body).sort(), ['id', 'slug']);
      assert.match(created.body.id, new RegExp(`^agt_${ULID}$`));
      assert.equal(created.body.slug, 'support-bot');

      const listed = await server.admin('GET', '/workspaces/agents/agents');
      assert.equal(listed.status, 200);
      const entry = listed.body.agents.find((agent: { id: string }) => agent.id === created.body.id);
      assert.equal(entry.name, 'Support Bot');
      assert.equal(entry.systemPrompt, 'Be kind.');
      assert.equal(entry.modelId, null);
      assert.equal(entry.useWorkspaceDefaultModel, true, 'no modelId means the workspace default model');
    });

    it('an explicit slug, a resolvable modelId, tools and reasoningLevel are stored', async () => {
      const tool = await server.admin('POST', '/workspaces/agents/tools', {
        name: 'lookup',
        http: { url: 'https://127.0.0.1:9/lookup' },
      });
      const created = await server.admin('POST', '/workspaces/agents/agents', {
        name: 'Researcher',
        slug: 'res-1',
        systemPrompt: 'Research.',
        modelId: 'agent-llm/fast',
        reasoningLevel: 'high',
        tools: [{ kind: 'svc', id: tool.body.id }],
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.slug, 'res-1');
      const entry = (await server.admin('GET', '/workspaces/agents/agents')).body.agents.find(
        (agent: { id: string }) => agent.id === created.body.id,
      );
      assert.equal(entry.modelId, 'agent-llm/fast');
      assert.equal(entry.useWorkspaceDefaultModel, false);
      assert.equal(entry.reasoningLevel, 'high');
      assert.deepEqual(entry.tools, [{ kind: 'svc', id: tool.body.id }]);
    });

    it("operator contract: description (at most 1,000 characters) and outputSchema are stored and listed; outputSchema gets the run spec's defaults", async () => {
      const schema = { type: 'object', properties: { answer: { type: 'string' } } };
      const created = await server.admin('POST', '/workspaces/agents/agents', {
        name: 'Describer',
        systemPrompt: 'Describe.',
        description: 'd'.repeat(1000),
        outputSchema: { schema },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const plain = await server.admin('POST', '/workspaces/agents/agents', {
        name: 'Plain',
        systemPrompt: 'x',
      });
      const listed = (await server.admin('GET', '/workspaces/agents/agents')).body.agents;
      const entry = listed.find((agent: { id: string }) => agent.id === created.body.id);
      assert.equal(entry.description, 'd'.repeat(1000));
      assert.deepEqual(entry.outputSchema, { name: 'output', schema, enforcement: 'best_effort' });
      const plainEntry = listed.find((agent: { id: string }) => agent.id === plain.body.id);
      assert.equal(plainEntry.description, null);
      assert.equal(plainEntry.outputSchema, null);
    });

    it('a description over 1,000 characters and an outputSchema the run spec refuses answer 400 invalid_request', async () => {
      const path = '/workspaces/agents/agents';
      assertInvalid(
        await server.admin('POST', path, { name: 'Long', systemPrompt: 'x', description: 'd'.repeat(1001) }),
        'description',
      );
      assertInvalid(
        await server.admin('POST', path, { name: 'Long', systemPrompt: 'x', description: 7 }),
        'description',
      );
      for (const outputSchema of [
        { schema: [] },
        { name: 'bad name', schema: {} },
        'x',
        { schema: {}, enforcement: 'hard' },
      ]) {
        assertInvalid(
          await server.admin('POST', path, { name: 'Long', systemPrompt: 'x', outputSchema }),
          'outputSchema',
        );
      }
      const listed = await server.admin('GET', path);
      assert.ok(!listed.body.agents.some((agent: { name: string }) => agent.name === 'Long'));
    });

    it('lists show the header names of tool refs, never their values (credentials)', async () => {
      const created = await server.admin('POST', '/workspaces/agents/agents', {
        name: 'Connector',
        systemPrompt: 'Connect.',
        tools: [
          {
            kind: 'mcp',
            name: 'crm',
            url: 'https://127.0.0.1:9/mcp',
            headers: { authorization: 'Bearer secret-mcp-token', 'x-team': 'blue' },
          },
        ],
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const listed = await server.admin('GET', '/workspaces/agents/agents');
      const entry = listed.body.agents.find((agent: { id: string }) => agent.id === created.body.id);
      assert.deepEqual(entry.tools[0].headers, ['authorization', 'x-team']);
      assert.doesNotMatch(JSON.stringify(listed.body), /secret-mcp-token/);
    });

    it('a modelId that does not resolve answers 400 invalid_model and stores nothing', async () => {
      const response = await server.admin('POST', '/workspaces/agents/agents', {
        name: 'Lost',
        systemPrompt: 'x',
        modelId: 'nope/never',
      });
      assertError(response, 400, 'invalid_model');
      const listed = await server.admin('GET', '/workspaces/agents/agents');
      assert.ok(!listed.body.agents.some((agent: { name: string }) => agent.name === 'Lost'));
    });

    it('a duplicate agent slug in the workspace answers 409 conflict', async () => {
      assert.equal(
        (await server.admin('POST', '/workspaces/agents/agents', { name: 'Twin', systemPrompt: 'a' })).status,
        201,
      );
      assertError(
        await server.admin('POST', '/workspaces/agents/agents', { name: 'Twin', systemPrompt: 'b' }),
        409,
        'conflict',
      );
    });

    it('bad agent input answers 400 invalid_request', async () => {
      const path = '/workspaces/agents/agents';
      assertInvalid(await server.admin('POST', path, { systemPrompt: 'x' }), 'name');
      assertInvalid(await server.admin('POST', path, { name: 'No Prompt' }), 'systemPrompt');
      assertInvalid(await server.admin('POST', path, { name: 'Bad', systemPrompt: '' }), 'systemPrompt');
      assertInvalid(
        await server.admin('POST', path, { name: 'Bad', slug: 'Bad Slug', systemPrompt: 'x' }),
        'slug',
      );
      assertInvalid(
        await server.admin('POST', path, { name: 'Bad', systemPrompt: 'x', reasoningLevel: 'max' }),
        'reasoningLevel',
      );
      assertInvalid(
        await server.admin('POST', path, { name: 'Bad', systemPrompt: 'x', tools: [{ kind: 'shell' }] }),
        'tools',
      );
      assertInvalid(
        await server.admin('POST', path, {
          name: 'Bad',
          systemPrompt: 'x',
          tools: [{ kind: 'local', name: 'has-dash' }],
        }),
        'tools',
      );
      assertInvalid(await server.admin('POST', path, { name: 'Bad', systemPrompt: 'x', tools: {} }), 'tools');
      assertInvalid(
        await server.admin('POST', path, { name: 'Bad', systemPrompt: 'x', temperature: 0.2 }),
        'temperature',
      );
      assertInvalid(
        await server.admin('POST', path, {
          name: 'Bad',
          systemPrompt: 'x',
          modelId: 'agent-llm/fast',
          useWorkspaceDefaultModel: true,
        }),
        'modelId',
      );
      const listed = await server.admin('GET', path);
      assert.ok(!listed.body.agents.some((agent: { name: string }) => agent.name === 'Bad'));
    });

    it('DELETE answers 204, then 404; unknown workspace answers 404', async () => {
      const created = await server.admin('POST', '/workspaces/agents/agents', {
        name: 'Temp',
        systemPrompt: 'x',
      });
      assert.equal(
        (await server.admin('DELETE', `/workspaces/agents/agents/${created.body.id}`)).status,
        204,
      );
      assertError(
        await server.admin('DELETE', `/workspaces/agents/agents/${created.body.id}`),
        404,
        'not_found',
      );
      assertError(await server.admin('GET', '/workspaces/no-such-ws/agents'), 404, 'not_found');
      assertError(
        await server.admin('POST', '/workspaces/no-such-ws/agents', { name: 'A', systemPrompt: 'x' }),
        404,
        'not_found',
      );
    });
  });
}
