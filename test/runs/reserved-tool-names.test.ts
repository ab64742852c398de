import assert from 'node:assert/strict';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { RecordedRequest } from '../fakes/scripted-reply.ts';
import { types } from '../support/run-fixture.ts';
import type { TestResponse } from '../support/test-server.ts';
import { startSessionFixture, type SessionFixture } from '../sessions/session-support.ts';
import { HOST_TOOL_NAMES } from './host-call-visibility.ts';

/**
 * The ruling "host tool names are reserved": wherever a tool name is declared (a run's, a session's
 * or a message's `tools`, an agent's tools, a workspace tool), `final_report`, `set_model_response`
 * and `update_task_plan` are `400 invalid_request`; a name only known at run start (an MCP server's
 * catalog) is left out of the run.
 */

const LOOPBACK = { AGENT_RUNS_FETCH_ALLOW: '127.0.0.0/8,::1/128' };

/** Every ref kind that declares a tool name, declaring `name`. */
function refsNaming(name: string): Array<Record<string, unknown>> {
  return [
    { kind: 'local', name },
    { kind: 'a2a', name, agentCardUrl: 'https://agents.example.com/.well-known/agent-card.json' },
    { kind: 'a2a_local', name, agentCard: { name: 'peer' } },
    { kind: 'svc_plugin', name },
    { kind: 'mcp_local', name: 'desktop', tools: [{ name }] },
  ];
}

function assertReserved(response: TestResponse, name: string, path: RegExp): void {
  assert.equal(response.status, 400, JSON.stringify(response.body));
  assert.equal(response.body.error, 'invalid_request');
  assert.match(response.body.message, path);
  assert.match(response.body.message, new RegExp(`'${name}' is reserved for a tool the service provides`));
}

/** The tool names an OpenAI Chat request offers, sorted. */
function offeredTools(request: RecordedRequest | undefined): string[] {
  const body = request?.body as { tools?: Array<{ function: { name: string } }> } | undefined;
  return (body?.tools ?? []).map((tool) => tool.function.name).sort();
}

function descriptionOf(request: RecordedRequest | undefined, name: string): string | undefined {
  const body = request?.body as
    { tools?: Array<{ function: { name: string; description?: string } }> } | undefined;
  return body?.tools?.find((tool) => tool.function.name === name)?.function.description;
}

/**
 * A stateless MCP server whose tools `plan` and `status`, under the prefix `update_task`, are
 * exposed as `update_task_plan` (a host tool's name) and `update_task_status`.
 */
async function startPlannerMcpServer(): Promise<{ url: string; close(): Promise<void> }> {
  const http: HttpServer = createServer((req, res) => {
    const server = new Server({ name: 'planner', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: ['plan', 'status'].map((name) => ({
        name,
        description: `The peer's ${name}.`,
        inputSchema: { type: 'object' as const },
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: 'done' }] }));
    // No session id generator: stateless, one server per request.
    const transport = new StreamableHTTPServerTransport({});
    res.on('close', () => void server.close());
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

describe('host tool names are reserved', { timeout: 60_000 }, () => {
  let fixture: SessionFixture;
  before(async () => {
    fixture = await startSessionFixture('openai-chat', { env: LOOPBACK });
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  it('a run declaring a tool named final_report, set_model_response or update_task_plan, of any kind, is 400 invalid_request naming the field', async () => {
    for (const name of HOST_TOOL_NAMES) {
      for (const ref of refsNaming(name)) {
        const created = await fixture.createRun({ systemPrompt: 's', prompt: 'p', tools: [ref] });
        const path = ref.kind === 'mcp_local' ? /^tools\.0\.tools\.0\.name: / : /^tools\.0\.name: /;
        assertReserved(created, name, path);
      }
    }
    assert.equal(fixture.fake.requests.length, 0);
  });

  it('a session declaring one is 400 invalid_request, at creation and in a message’s tools', async () => {
    const created = await fixture.createSession({
      systemPrompt: 's',
      tools: [{ kind: 'local', name: 'update_task_plan' }],
    });
    assertReserved(created, 'update_task_plan', /^tools\.0\.name: /);

    const sessionId = await fixture.newSession({ systemPrompt: 's' });
    const message = await fixture.postMessage(sessionId, {
      prompt: 'p',
      tools: [{ kind: 'local', name: 'set_model_response' }],
    });
    assertReserved(message, 'set_model_response', /^tools\.0\.name: /);
  });

  it('an agent’s tools and a workspace tool may not take one either (admin API: 400 invalid_request)', async () => {
    const agent = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/agents`, {
      name: 'Reporter',
      systemPrompt: 's',
      tools: [{ kind: 'local', name: 'final_report' }],
    });
    assertReserved(agent, 'final_report', /^tools\.0\.name: /);

    const tool = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/tools`, {
      name: 'update_task_plan',
      http: { url: 'https://tools.example.com/plan' },
    });
    assertReserved(tool, 'update_task_plan', /^name: /);
  });

  it('a workspace tool row or an agent stored before the rule, taking one, makes the run 400 invalid_request at creation', async () => {
    // Written straight to storage, as rows stored before the names were reserved would be.
    const { repos } = fixture.server.service.resources;
    const workspace = await repos.workspaces.findBySlug(fixture.slug);
    assert.ok(workspace);
    const row = await repos.workspaceTools.create({
      workspaceId: workspace.id,
      name: 'final_report',
      description: '',
      parameters: { type: 'object', properties: {} },
      http: { url: 'https://tools.example.com/report', method: 'POST', headers: {} },
    });
    const viaRow = await fixture.createRun({
      systemPrompt: 's',
      prompt: 'p',
      tools: [{ kind: 'svc', id: row.id }],
    });
    assertReserved(viaRow, 'final_report', /^tools\.0: /);

    const agent = await repos.agents.create({
      workspaceId: workspace.id,
      slug: 'old-planner',
      name: 'Old planner',
      systemPrompt: 's',
      modelId: null,
      useWorkspaceDefaultModel: true,
      reasoningLevel: null,
      tools: [{ kind: 'local', name: 'update_task_plan' }],
      isSystem: false,
    });
    const viaAgent = await fixture.createRun({ agentId: agent.id, prompt: 'p' });
    assertReserved(viaAgent, 'update_task_plan', /^tools\.0: /);
    assert.equal(fixture.fake.requests.length, 0);
  });

  it('a name that declares no tool stays free: an mcp_local server labelled final_report is accepted', async () => {
    fixture.fake.enqueue({ text: ['ok'] });
    const { frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'p',
      tools: [{ kind: 'mcp_local', name: 'final_report', tools: [{ name: 'lookup' }] }],
    });
    assert.equal(types(frames).at(-1), 'result');
    assert.deepEqual(offeredTools(fixture.fake.requests[0]), ['lookup']);
  });

  it('an MCP catalog listed at run start that would expose a host tool’s name: that tool is left out, the plan’s own tool stays', async () => {
    const mcp = await startPlannerMcpServer();
    try {
      const tools = [{ kind: 'mcp', name: 'update_task', url: mcp.url }];
      fixture.fake.enqueue({ text: ['ok'] });
      for (const plan of [false, true]) {
        const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', tools, plan });
        assert.equal(types(frames).at(-1), 'result');
      }
      const [withoutPlan, withPlan] = fixture.fake.requests;
      assert.deepEqual(offeredTools(withoutPlan), ['update_task_status']);
      assert.deepEqual(offeredTools(withPlan), ['update_task_plan', 'update_task_status']);
      assert.match(
        descriptionOf(withPlan, 'update_task_plan') ?? '',
        /task plan/,
        'the host tool, not the peer’s',
      );
    } finally {
      await mcp.close();
    }
  });
});
