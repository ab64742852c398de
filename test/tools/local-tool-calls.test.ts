import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startRunFixture, types, type RunFixture } from '../support/run-fixture.ts';
import { ofType, postToolResult, toolResultBlocks, toolResultText, WEATHER_TOOL } from './tool-support.ts';

describe('local_tool_call events', { timeout: 120_000 }, () => {
  let fixture: RunFixture;
  before(async () => {
    fixture = await startRunFixture('anthropic-messages', { engine: { shutdownGraceMs: 200 } });
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  it('local: local_tool_call carries toolUseId, name, args and kind local; the answer reaches the model', async () => {
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
      { text: ['Sunny.'] },
    );
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'weather?', tools: [WEATHER_TOOL] });
    const call = await run.waitForType('local_tool_call');
    assert.deepEqual(call.data.data, {
      toolUseId: 'toolu_1',
      name: 'get_weather',
      args: { city: 'Paris' },
      kind: 'local',
    });
    const posted = await postToolResult(fixture, run.runId, {
      toolUseId: 'toolu_1',
      result: '21C and sunny',
    });
    assert.equal(posted.status, 200);
    const frames = await run.ended;
    assert.equal(types(frames).at(-1), 'result');
    assert.equal(frames.at(-1)?.data.data.text, 'Sunny.');
    const [block] = toolResultBlocks(fixture.fake.requests[1]);
    assert.equal(block?.tool_use_id, 'toolu_1');
    assert.equal(toolResultText(block), '21C and sunny');
    assert.notEqual(block?.is_error, true);
  });

  it('a2a_local: args is { message } and the full agentCard is echoed, unknown card fields included', async () => {
    const agentCard = {
      name: 'Travel Planner',
      description: 'Plans trips.',
      protocolVersion: '0.3.0',
      url: 'https://127.0.0.1:9/a2a',
      version: '2.1.0',
      provider: { organization: 'Acme', url: 'https://127.0.0.1:9/' },
      capabilities: { streaming: true, pushNotifications: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain', 'application/json'],
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      security: [{ bearer: [] }],
      skills: [{ id: 'plan', name: 'Plan', description: 'Plan a trip', tags: ['travel'] }],
      xVendorExtension: { nested: [1, { deep: true }] },
    };
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_a2a', name: 'travel', input: { message: 'Plan 3 days in Rome' } }] },
      { text: ['Booked.'] },
    );
    const run = await fixture.startRun({
      systemPrompt: 's',
      prompt: 'trip',
      tools: [{ kind: 'a2a_local', name: 'travel', agentCard }],
    });
    const call = await run.waitForType('local_tool_call');
    assert.equal(call.data.data.kind, 'a2a_local');
    assert.equal(call.data.data.toolUseId, 'toolu_a2a');
    assert.equal(call.data.data.name, 'travel');
    assert.deepEqual(call.data.data.args, { message: 'Plan 3 days in Rome' });
    assert.deepEqual(call.data.data.agentCard, agentCard);
    assert.equal(
      (await postToolResult(fixture, run.runId, { toolUseId: 'toolu_a2a', result: 'Itinerary ready' }))
        .status,
      200,
    );
    assert.equal(types(await run.ended).at(-1), 'result');
    assert.equal(toolResultText(toolResultBlocks(fixture.fake.requests[1])[0]), 'Itinerary ready');
  });

  it('mcp_local: mcpServer, mcpToolName, mcpServerInfo only when serverInfo was given, annotations echoed', async () => {
    const serverInfo = { name: 'docs-server', version: '1.2.0', vendorField: { build: 42 } };
    const annotations = { title: 'Search docs', destructiveHint: false, openWorldHint: true, custom: 'x' };
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_m1', name: 'search_docs', input: { query: 'install' } }] },
      { toolCalls: [{ id: 'toolu_m2', name: 'add', input: {} }] },
      { text: ['Done.'] },
    );
    const run = await fixture.startRun({
      systemPrompt: 's',
      prompt: 'go',
      tools: [
        {
          kind: 'mcp_local',
          name: 'docs',
          serverInfo,
          tools: [
            {
              name: 'search_docs',
              inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
              annotations,
            },
          ],
        },
        { kind: 'mcp_local', name: 'calc', tools: [{ name: 'add', description: 'Adds.' }] },
      ],
    });
    const first = await run.waitFor(
      (frame) => frame.data.type === 'local_tool_call' && frame.data.data.toolUseId === 'toolu_m1',
    );
    assert.deepEqual(first.data.data, {
      toolUseId: 'toolu_m1',
      name: 'search_docs',
      args: { query: 'install' },
      kind: 'mcp_local',
      mcpServer: 'docs',
      mcpToolName: 'search_docs',
      mcpServerInfo: serverInfo,
      annotations,
    });
    assert.equal(
      (await postToolResult(fixture, run.runId, { toolUseId: 'toolu_m1', result: 'found 3 pages' })).status,
      200,
    );
    const second = await run.waitFor(
      (frame) => frame.data.type === 'local_tool_call' && frame.data.data.toolUseId === 'toolu_m2',
    );
    assert.equal(second.data.data.kind, 'mcp_local');
    assert.equal(second.data.data.mcpServer, 'calc');
    assert.equal(second.data.data.mcpToolName, 'add');
    assert.ok(!('mcpServerInfo' in second.data.data), 'no mcpServerInfo without serverInfo');
    assert.ok(!('annotations' in second.data.data), 'no annotations when the tool has none');
    assert.equal(
      (await postToolResult(fixture, run.runId, { toolUseId: 'toolu_m2', result: '4' })).status,
      200,
    );
    assert.equal(types(await run.ended).at(-1), 'result');
  });

  it('args that break the input schema: no local_tool_call, the model gets a tool_input_invalid result, the run goes on', async () => {
    fixture.fake.enqueue(
      {
        toolCalls: [
          { id: 'toolu_type', name: 'get_weather', input: { city: 42 } },
          { id: 'toolu_missing', name: 'get_weather', input: {} },
          { id: 'toolu_nested', name: 'search', input: { query: 'abc', options: { limit: 9 } } },
          { id: 'toolu_peer', name: 'peer', input: { text: 'wrong key' } },
        ],
      },
      { text: ['Recovered.'] },
    );
    const { frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'p',
      tools: [
        WEATHER_TOOL,
        {
          kind: 'mcp_local',
          name: 'srv',
          tools: [
            {
              name: 'search',
              inputSchema: {
                type: 'object',
                properties: {
                  query: { type: 'string' },
                  options: { type: 'object', properties: { limit: { type: 'integer', maximum: 5 } } },
                },
              },
            },
          ],
        },
        { kind: 'a2a_local', name: 'peer', agentCard: { name: 'Peer' } },
      ],
    });
    assert.equal(ofType(frames, 'local_tool_call').length, 0);
    assert.equal(types(frames).at(-1), 'result');
    assert.equal(frames.at(-1)?.data.data.subtype, 'success');
    assert.equal(fixture.fake.requests.length, 2);
    const blocks = toolResultBlocks(fixture.fake.requests[1]);
    assert.deepEqual(
      blocks.map((block) => block.tool_use_id),
      ['toolu_type', 'toolu_missing', 'toolu_nested', 'toolu_peer'],
    );
    for (const block of blocks) {
      assert.match(toolResultText(block), /tool_input_invalid/, block.tool_use_id);
      assert.equal(block.is_error, true, block.tool_use_id);
    }
  });

  it('an unknown tool called by the model gets exactly one structured error result and no local_tool_call', async () => {
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_ghost', name: 'launch_rockets', input: { count: 3 } }] },
      { text: ['Sorry.'] },
    );
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', tools: [WEATHER_TOOL] });
    assert.equal(ofType(frames, 'local_tool_call').length, 0);
    assert.equal(types(frames).at(-1), 'result');
    const blocks = toolResultBlocks(fixture.fake.requests[1]).filter(
      (block) => block.tool_use_id === 'toolu_ghost',
    );
    // A provider rejects a conversation that answers one tool_use twice.
    assert.equal(blocks.length, 1, `tool_results for toolu_ghost: ${JSON.stringify(blocks)}`);
    assert.equal(blocks[0]?.is_error, true);
    assert.match(toolResultText(blocks[0]), /launch_rockets/);
  });
});
