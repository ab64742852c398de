import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LATEST_PROTOCOL_VERSION, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { bearer, createWorkspaceWithKey } from '../support/test-server.ts';
import { deferred, eventually } from '../support/waits.ts';
import { connectMcp, mcpUrl, runIdOf, textOf } from './mcp-support.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary wire JSON
type WireJson = Record<string, any>;

const INPUT_SCHEMA = {
  type: 'object',
  properties: { message: { type: 'string' }, sessionId: { type: 'string' } },
  required: ['message'],
};
const ANSWER_SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string' } },
  required: ['answer'],
};

describe(
  'extensions §9: agents as an MCP server (Streamable HTTP, official SDK client)',
  { timeout: 180_000 },
  () => {
    let fixture: RunFixture;
    let client: Client;
    let url: URL;
    const agentIds: Record<string, string> = {};

    const createAgent = async (body: Record<string, unknown>) => {
      const created = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/agents`, body);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body.id as string;
    };
    const call = (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
    const snapshot = async (runId: string) =>
      (await fixture.server.request('GET', `${fixture.ws}/agent-runs/${runId}`, { headers: fixture.headers }))
        .body;

    before(async () => {
      fixture = await startRunFixture('openai-chat');
      agentIds.helper = await createAgent({
        name: 'Helper',
        description: 'Answers questions about the weather.',
        systemPrompt: 'You are the helper.',
      });
      agentIds.plain = await createAgent({ name: 'Plain Bot', systemPrompt: 'You are plain.' });
      agentIds.structured = await createAgent({
        name: 'Structured',
        systemPrompt: 'Answer in JSON.',
        outputSchema: { name: 'answer', schema: ANSWER_SCHEMA },
      });
      agentIds.local = await createAgent({
        name: 'Local User',
        systemPrompt: 'Use the lookup tool.',
        tools: [{ kind: 'local', name: 'lookup', parameters: { type: 'object', properties: {} } }],
      });
      agentIds.internal = await createAgent({ name: 'Internal', systemPrompt: 'x', system: true });
      url = mcpUrl(fixture.server.baseUrl, fixture.slug);
      client = await connectMcp(url, fixture.headers);
    });
    after(async () => {
      await client?.close();
      await fixture?.close();
    });
    // Also lets a reply a failed test left held go on (`fake.reset`).
    afterEach(() => fixture.cleanUp());

    it('initialize negotiates the newest revision and names the server', () => {
      assert.equal(client.getServerVersion()?.name, 'agent-runs');
      assert.ok(client.getServerCapabilities()?.tools, 'the server offers tools');
    });

    it('tools/list: one tool per non-system agent, named from the slug (`-` as `_`), described by the description else the name, with the given input schema', async () => {
      const { tools } = await client.listTools();
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      assert.deepEqual([...byName.keys()].sort(), ['helper', 'local_user', 'plain_bot', 'structured']);
      assert.equal(byName.get('helper')?.description, 'Answers questions about the weather.');
      assert.equal(byName.get('plain_bot')?.description, 'Plain Bot');
      for (const tool of tools) assert.deepEqual(tool.inputSchema, INPUT_SCHEMA);
      assert.deepEqual(byName.get('structured')?.outputSchema, ANSWER_SCHEMA);
      assert.equal(byName.get('helper')?.outputSchema, undefined);
      assert.doesNotMatch(JSON.stringify(tools), /You are the helper/, 'system prompts are never shown');
    });

    it('tools/call runs the agent once: the reply as text content, _meta with the run id and the usage triple; the run is an ordinary run of the agent', async () => {
      fixture.fake.enqueue({ text: ['Sunny ', 'all day.'] });
      const result = await call('helper', { message: 'Weather?' });
      assert.equal(result.isError, undefined);
      assert.deepEqual(result.content, [{ type: 'text', text: 'Sunny all day.' }]);
      const runId = runIdOf(result);
      assert.match(runId, /^run_/);
      const usage = result._meta?.['agent-runs/usage'] as WireJson;
      assert.equal(usage.turns, 1);
      assert.ok(usage.tokens.inputTokens > 0 && usage.tokens.outputTokens > 0, JSON.stringify(usage));
      assert.equal(typeof usage.model.id, 'string');
      const run = await snapshot(runId);
      assert.equal(run.status, 'succeeded');
      assert.equal(run.agentId, agentIds.helper);
      assert.equal(run.sessionId, null);
      assert.deepEqual(run.tokens, usage.tokens);
    });

    it("an agent with an outputSchema answers structuredContent (the SDK client validates it against the tool's outputSchema)", async () => {
      fixture.fake.enqueue({ text: ['{"answer":"42"}'] });
      const result = await call('structured', { message: 'The answer?' });
      assert.equal(result.isError, undefined, textOf(result));
      assert.deepEqual(result.structuredContent, { answer: '42' });
      assert.equal(textOf(result), '{"answer":"42"}');
    });

    it('a failed run answers isError with the error message and its run id', async () => {
      fixture.fake.enqueue({ type: 'http-error', status: 400, message: 'the request is malformed' });
      const result = await call('helper', { message: 'break please' });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /failed/);
      assert.match(textOf(result), /malformed/);
      assert.equal((await snapshot(runIdOf(result))).status, 'failed');
    });

    it('an agent with client-resolved tools answers isError saying so, and starts no run', async () => {
      const before = await fixture.server.request(
        'GET',
        `${fixture.ws}/agent-runs?agentId=${agentIds.local}`,
        {
          headers: fixture.headers,
        },
      );
      const result = await call('local_user', { message: 'look it up' });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /client-resolved tools \(local\)/);
      const afterCall = await fixture.server.request(
        'GET',
        `${fixture.ws}/agent-runs?agentId=${agentIds.local}`,
        {
          headers: fixture.headers,
        },
      );
      assert.equal(afterCall.body.runs.length, before.body.runs.length);
    });

    it('bad arguments answer isError naming the argument; an unknown or system agent is an unknown tool (JSON-RPC error)', async () => {
      const missing = await call('helper', {});
      assert.equal(missing.isError, true);
      assert.match(textOf(missing), /message/);
      await assert.rejects(call('internal', { message: 'hi' }), /Unknown tool: internal/);
      await assert.rejects(call('nobody', { message: 'hi' }), /Unknown tool: nobody/);
    });

    it('progress notifications carry the reply text as it streams when the client sent a progressToken', async () => {
      fixture.fake.enqueue({ text: ['One ', 'two ', 'three.'] });
      const progress: Array<{ progress: number; message?: string | undefined }> = [];
      const result = (await client.callTool({ name: 'helper', arguments: { message: 'count' } }, undefined, {
        onprogress: (notification) => progress.push(notification),
      })) as CallToolResult;
      assert.equal(textOf(result), 'One two three.');
      assert.equal(progress.map((p) => p.message).join(''), 'One two three.');
      assert.deepEqual(
        progress.map((p) => p.progress),
        [4, 8, 14],
        'progress counts the characters streamed so far',
      );
    });

    it('notifications/cancelled cancels the run (through the run-cancel path, found by the MCP session and request id)', async () => {
      const hold = deferred();
      fixture.fake.enqueue({ text: ['Partial ', 'answer'], holdUntil: hold.promise, holdAfterChunks: 1 });
      const abort = new AbortController();
      const firstText = deferred<string>();
      const pending = client.callTool(
        { name: 'helper', arguments: { message: 'take your time' } },
        undefined,
        {
          signal: abort.signal,
          onprogress: (notification) => firstText.resolve(notification.message ?? ''),
        },
      );
      assert.equal(await firstText.promise, 'Partial ');
      abort.abort('the user changed their mind');
      await assert.rejects(pending);
      const latest = async () =>
        (
          await fixture.server.request('GET', `${fixture.ws}/agent-runs?agentId=${agentIds.helper}&limit=1`, {
            headers: fixture.headers,
          })
        ).body.runs[0] as WireJson;
      const run = await latest();
      assert.match(run.metadata['mcp.sessionId'], /^mcps_/);
      await eventually(
        async () => (await snapshot(run.runId)).cancelRequested === true,
        'the cancellation reaches the run',
      );
      // The fake provider lets the turn go on only now: the run cannot have ended before the cancellation.
      hold.resolve();
      await eventually(
        async () => (await snapshot(run.runId)).status === 'cancelled',
        'the run is cancelled',
      );
    });

    it('sessionId continues a session of the agent (a message run in it); a session of another agent is refused', async () => {
      const created = await fixture.server.request('POST', `${fixture.ws}/agent-sessions`, {
        headers: fixture.headers,
        body: { agentId: agentIds.helper },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const sessionId = created.body.sessionId as string;
      fixture.fake.enqueue({ text: ['Noted: blue.'] }, { text: ['Your colour is blue.'] });
      const first = await call('helper', { message: 'My colour is blue.', sessionId });
      const second = await call('helper', { message: 'What is my colour?', sessionId });
      assert.equal(textOf(second), 'Your colour is blue.');
      for (const result of [first, second])
        assert.equal((await snapshot(runIdOf(result))).sessionId, sessionId);
      const transcript = JSON.stringify(fixture.fake.requests[1]?.body);
      assert.match(transcript, /My colour is blue\./, 'the second run replays the session history');
      assert.match(transcript, /Noted: blue\./);

      const other = await call('plain_bot', { message: 'hi', sessionId });
      assert.equal(other.isError, true);
      assert.match(textOf(other), /not a session of agent 'plain-bot'/);
      const unknown = await call('helper', { message: 'hi', sessionId: 'ses_00000000000000000000000000' });
      assert.equal(unknown.isError, true);
      assert.match(textOf(unknown), /not_found/);
    });

    it('an API key with an agent allowlist lists and calls only its agents', async () => {
      const key = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/api-keys`, {
        agentIds: [agentIds.plain],
      });
      const limited = await connectMcp(url, bearer(key.body.key as string));
      try {
        const { tools } = await limited.listTools();
        assert.deepEqual(
          tools.map((tool) => tool.name),
          ['plain_bot'],
        );
        await assert.rejects(
          limited.callTool({ name: 'helper', arguments: { message: 'hi' } }),
          /Unknown tool/,
        );
        fixture.fake.enqueue({ text: ['plain reply'] });
        const result = (await limited.callTool({
          name: 'plain_bot',
          arguments: { message: 'hi' },
        })) as CallToolResult;
        assert.equal(textOf(result), 'plain reply');
      } finally {
        await limited.close();
      }
    });

    it('the SDK client sees refused credentials: none (401), a wrong key (401), another workspace key (404 slug mismatch)', async () => {
      const httpStatus = (status: number, pattern: RegExp) => (error: unknown) =>
        (error as { code?: unknown }).code === status && pattern.test(String(error));
      await assert.rejects(connectMcp(url, {}), httpStatus(401, /missing credential/));
      await assert.rejects(
        connectMcp(url, bearer('svc_not_a_real_key_000000000000000000000000')),
        httpStatus(401, /unauthorized/),
      );
      const other = await createWorkspaceWithKey(fixture.server, `other-${Date.now()}`);
      await assert.rejects(connectMcp(url, bearer(other.key)), httpStatus(404, /Workspace path mismatch/));
    });

    describe('the wire', () => {
      const post = (body: unknown, headers: Record<string, string> = {}) =>
        fetch(url, {
          method: 'POST',
          headers: {
            ...fixture.headers,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          body: JSON.stringify(body),
        });
      const initialize = (protocolVersion: string) =>
        post({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
        });
      const sseJson = async (response: Response) => {
        const text = await response.text();
        const data = text.split('\n').find((line) => line.startsWith('data: '));
        return JSON.parse(data ? data.slice(6) : text) as WireJson;
      };

      it('initialize answers an Mcp-Session-Id; a revision older than 2025-06-18 is answered with the newest', async () => {
        const current = await initialize('2025-06-18');
        assert.equal(current.status, 200);
        assert.match(current.headers.get('mcp-session-id') ?? '', /^mcps_[0-9a-f]{32}$/);
        assert.equal((await sseJson(current)).result.protocolVersion, '2025-06-18');
        const old = await initialize('2025-03-26');
        assert.equal((await sseJson(old)).result.protocolVersion, LATEST_PROTOCOL_VERSION);
      });

      it('requests with an older MCP-Protocol-Version, malformed JSON or a batch are 400 JSON-RPC errors; GET and DELETE are 405', async () => {
        const old = await post(
          { jsonrpc: '2.0', id: 2, method: 'tools/list' },
          { 'mcp-protocol-version': '2025-03-26' },
        );
        assert.equal(old.status, 400);
        assert.match(((await old.json()) as WireJson).error.message, /unsupported MCP-Protocol-Version/);
        const batch = await post([{ jsonrpc: '2.0', id: 3, method: 'tools/list' }]);
        assert.equal(batch.status, 400);
        assert.equal(((await batch.json()) as WireJson).error.code, -32600);
        const malformed = await fetch(url, {
          method: 'POST',
          headers: {
            ...fixture.headers,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: '{"jsonrpc":',
        });
        assert.equal(malformed.status, 400);
        assert.equal(((await malformed.json()) as WireJson).error.code, -32700);
        for (const method of ['GET', 'DELETE']) {
          const response = await fetch(url, {
            method,
            headers: { ...fixture.headers, accept: 'text/event-stream' },
          });
          assert.equal(response.status, 405, method);
          await response.body?.cancel();
        }
      });

      it('tools/call is metered in the run_start bucket, like any run start; tools/list as transport', async () => {
        const list = await post({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
        assert.equal(list.headers.get('x-ratelimit-bucket'), 'transport');
        await list.body?.cancel();
        fixture.fake.enqueue({ text: ['metered'] });
        const called = await post({
          jsonrpc: '2.0',
          id: 5,
          method: 'tools/call',
          params: { name: 'helper', arguments: { message: 'hi' } },
        });
        assert.equal(called.headers.get('x-ratelimit-bucket'), 'run_start');
        assert.equal(textOf((await sseJson(called)).result as CallToolResult), 'metered');
      });
    });
  },
);
