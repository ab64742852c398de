import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, afterEach, before, describe, it } from 'node:test';
import { answerJson, startHttpToolServer, type HttpToolServer } from '../support/http-tool-server.ts';
import { startRunFixture, types, type RunFixture } from '../support/run-fixture.ts';
import { ofType, toolResultBlocks, toolResultText, toolsByName } from './tool-support.ts';

/** A 1x1 PNG. */
const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const LOOPBACK = { AGENT_RUNS_FETCH_ALLOW: '127.0.0.0/8,::1/128' };

describe('server-resolved tools in a run: svc and svc_plugin', { timeout: 60_000 }, () => {
  let fixture: RunFixture;
  let tools: HttpToolServer;
  before(async () => {
    tools = await startHttpToolServer();
    fixture = await startRunFixture('anthropic-messages', { env: LOOPBACK });
  });
  after(async () => {
    await fixture.close();
    await tools.close();
  });
  afterEach(() => fixture.cleanUp());

  async function workspaceTool(body: Record<string, unknown>): Promise<string> {
    const created = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/tools`, body);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body.id as string;
  }

  it('svc: the row is called with the model arguments and its headers; tool_call then tool_result (ok, summary) stream, and the whole result goes to the model', async () => {
    const longAnswer = { forecast: 'sunny '.repeat(600) };
    tools.route('/weather', answerJson(longAnswer));
    const id = await workspaceTool({
      name: 'weather',
      description: 'Weather for a city.',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      http: { url: tools.url('/weather'), method: 'POST', headers: { 'x-tool-key': 'k-123' } },
    });
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_w', name: 'weather', input: { city: 'Paris' } }] },
      { text: ['Sunny.'] },
    );
    const { frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'weather?',
      tools: [{ kind: 'svc', id }],
    });

    assert.deepEqual(
      types(frames).filter((type) => type !== 'assistant_delta'),
      ['assistant_message', 'tool_call', 'tool_result', 'assistant_message', 'result'],
    );
    assert.deepEqual(ofType(frames, 'tool_call')[0]?.data.data, {
      toolUseId: 'toolu_w',
      name: 'weather',
      input: { city: 'Paris' },
    });
    const result = ofType(frames, 'tool_result')[0]?.data.data;
    assert.ok(result);
    assert.equal(result.toolUseId, 'toolu_w');
    assert.equal(result.name, 'weather');
    assert.equal(result.ok, true);
    assert.ok(
      result.summary.length < JSON.stringify(longAnswer).length,
      'the stream shows a display-truncated result',
    );
    assert.ok(JSON.stringify(longAnswer).startsWith(result.summary.slice(0, 100)));
    const [request] = tools.requestsTo('/weather');
    assert.deepEqual(JSON.parse(request?.body ?? ''), { city: 'Paris' });
    assert.equal(request?.headers['x-tool-key'], 'k-123');
    assert.equal(
      request?.headers['idempotency-key'],
      'toolu_w',
      'extensions §5: Idempotency-Key is the toolUseId',
    );
    const toModel = toolResultText(toolResultBlocks(fixture.fake.requests[1])[0]);
    assert.deepEqual(JSON.parse(toModel), longAnswer, 'the model gets the whole result');
  });

  it('svc: arguments that break the row parameters are a tool_input_invalid result and the endpoint is never called', async () => {
    tools.route('/strict', answerJson({ ok: true }));
    const id = await workspaceTool({
      name: 'strict_tool',
      parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      http: { url: tools.url('/strict') },
    });
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_bad', name: 'strict_tool', input: { n: 'not a number' } }] },
      { text: ['Fixed.'] },
    );
    const { frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'p',
      tools: [{ kind: 'svc', id }],
    });
    assert.equal(types(frames).at(-1), 'result');
    assert.equal(tools.requestsTo('/strict').length, 0);
    assert.equal(ofType(frames, 'tool_call').length, 0, 'nothing was executed');
    assert.match(toolResultText(toolResultBlocks(fixture.fake.requests[1])[0]), /tool_input_invalid/);
  });

  it('tool_files: files a tool returns are stored and announced (metadata with storageKey or url, never bytes) before the matching tool_result, and the model gets the image', async () => {
    tools.route(
      '/render',
      answerJson({
        result: 'rendered',
        files: [
          { filename: 'chart.png', mimeType: 'image/png', data: PIXEL_PNG.toString('base64') },
          {
            filename: 'report.pdf',
            mimeType: 'application/pdf',
            url: 'https://127.0.0.1:9/report.pdf',
            sizeBytes: 1234,
          },
        ],
      }),
    );
    const id = await workspaceTool({ name: 'render', http: { url: tools.url('/render') } });
    fixture.fake.enqueue({ toolCalls: [{ id: 'toolu_r', name: 'render', input: {} }] }, { text: ['Here.'] });
    const { frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'p',
      tools: [{ kind: 'svc', id }],
    });

    const order = types(frames).filter((type) => type.startsWith('tool_'));
    assert.deepEqual(order, ['tool_call', 'tool_files', 'tool_result']);
    const files = ofType(frames, 'tool_files')[0]?.data.data;
    assert.ok(files);
    assert.equal(files.name, 'render');
    assert.equal(files.files.length, 2);
    const [png, pdf] = files.files;
    assert.equal(png.filename, 'chart.png');
    assert.equal(png.mimeType, 'image/png');
    assert.equal(png.sizeBytes, PIXEL_PNG.length);
    assert.match(png.storageKey, /^files\//);
    assert.equal(png.data, undefined);
    assert.deepEqual(pdf, {
      filename: 'report.pdf',
      mimeType: 'application/pdf',
      sizeBytes: 1234,
      url: 'https://127.0.0.1:9/report.pdf',
    });
    assert.ok(
      !frames.some((frame) => frame.raw.includes(PIXEL_PNG.toString('base64'))),
      'no bytes on the stream',
    );
    const block = toolResultBlocks(fixture.fake.requests[1])[0];
    const image = (block?.content as Array<{ type: string; source?: { data?: string } }>).find(
      (part) => part.type === 'image',
    );
    assert.equal(image?.source?.data, PIXEL_PNG.toString('base64'), 'the model gets the image');
  });

  it('independent read-only calls of one turn run concurrently and their results reach the model in emit order', async () => {
    let release: () => void = () => {};
    const bothArrived = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held = (label: string) => async (_: unknown, response: ServerResponse) => {
      await bothArrived;
      response.writeHead(200, { 'content-type': 'text/plain' }).end(label);
    };
    tools.route('/slow_a', held('from a'));
    tools.route('/slow_b', held('from b'));
    const a = await workspaceTool({ name: 'read_a', http: { url: tools.url('/slow_a'), method: 'GET' } });
    const b = await workspaceTool({ name: 'read_b', http: { url: tools.url('/slow_b'), method: 'GET' } });
    fixture.fake.enqueue(
      {
        toolCalls: [
          { id: 'toolu_1', name: 'read_a', input: {} },
          { id: 'toolu_2', name: 'read_b', input: {} },
        ],
      },
      { text: ['Both.'] },
    );
    const run = await fixture.startRun({
      systemPrompt: 's',
      prompt: 'p',
      tools: [
        { kind: 'svc', id: a },
        { kind: 'svc', id: b },
      ],
    });
    // Both requests are in flight at once: neither is answered until the other arrived.
    await tools.until(
      (requests) =>
        requests.some((r) => r.url.startsWith('/slow_a')) &&
        requests.some((r) => r.url.startsWith('/slow_b')),
      'both read-only calls are in flight together',
    );
    release();
    const frames = await run.ended;
    assert.equal(types(frames).at(-1), 'result');
    const blocks = toolResultBlocks(fixture.fake.requests[1]);
    assert.deepEqual(
      blocks.map((block) => [block.tool_use_id, toolResultText(block)]),
      [
        ['toolu_1', 'from a'],
        ['toolu_2', 'from b'],
      ],
    );
  });

  it('cancel aborts an in-flight server call: the tool server sees its connection close, and the run ends cancelled', async () => {
    tools.route('/forever', () => {
      // Never answers: only the cancel ends the request.
    });
    const id = await workspaceTool({ name: 'forever', http: { url: tools.url('/forever') } });
    fixture.fake.enqueue({ toolCalls: [{ id: 'toolu_f', name: 'forever', input: {} }] });
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'p', tools: [{ kind: 'svc', id }] });
    await run.waitForType('tool_call');
    await tools.until(
      (requests) => requests.some((r) => r.url === '/forever'),
      'the call reached the tool server',
    );
    const cancelled = await fixture.server.request('POST', `${fixture.ws}/agent-runs/${run.runId}/cancel`, {
      headers: fixture.headers,
    });
    assert.equal(cancelled.status, 200);
    await tools.until(
      (requests) => requests.some((r) => r.url === '/forever' && r.closedByClient),
      'the tool server saw the connection close',
    );
    const frames = await run.ended;
    assert.equal(types(frames).at(-1), 'cancelled');
    const result = ofType(frames, 'tool_result')[0]?.data.data;
    assert.equal(result?.ok, false);
    assert.equal(fixture.fake.requests.length, 1, 'no model turn after the cancel');
  });

  it('svc_plugin: current_time runs on the service and its result reaches the model', async () => {
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_t', name: 'current_time', input: { timeZone: 'Asia/Tokyo' } }] },
      { text: ['It is late.'] },
    );
    const { frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'time?',
      tools: [{ kind: 'svc_plugin', name: 'current_time' }],
    });
    assert.equal(types(frames).at(-1), 'result');
    assert.ok(toolsByName(fixture.fake.requests[0]).has('current_time'));
    assert.equal(ofType(frames, 'tool_result')[0]?.data.data.ok, true);
    assert.match(toolResultText(toolResultBlocks(fixture.fake.requests[1])[0]), /\+09:00/);
  });

  it('svc_plugin memory: remember in one run of an agent, recall in the next run of the same agent', async () => {
    const agent = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/agents`, {
      name: 'Keeper',
      systemPrompt: 'You remember things.',
      tools: [
        { kind: 'svc_plugin', name: 'remember' },
        { kind: 'svc_plugin', name: 'recall' },
      ],
    });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_m1', name: 'remember', input: { content: 'The user likes green tea.' } }] },
      { text: ['Noted.'] },
    );
    const first = await fixture.runToEnd({ agentId: agent.body.id, prompt: 'I like green tea' });
    assert.equal(ofType(first.frames, 'tool_result')[0]?.data.data.ok, true);
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_m2', name: 'recall', input: {} }] },
      { text: ['Green tea.'] },
    );
    await fixture.runToEnd({ agentId: agent.body.id, prompt: 'what do I like?' });
    assert.match(toolResultText(toolResultBlocks(fixture.fake.requests.at(-1))[0]), /green tea/);
  });

  it("agentId runs load the agent's own server tools and merge the request's tools on top", async () => {
    const agent = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/agents`, {
      name: 'Clock',
      systemPrompt: 'You tell the time.',
      tools: [{ kind: 'svc_plugin', name: 'current_time' }],
    });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    fixture.fake.enqueue({ text: ['ok'] });
    await fixture.runToEnd({
      agentId: agent.body.id,
      prompt: 'p',
      tools: [{ kind: 'local', name: 'ask_user', description: 'Ask the user.' }],
    });
    const offered = toolsByName(fixture.fake.requests.at(-1));
    assert.deepEqual([...offered.keys()].sort(), ['ask_user', 'current_time']);
  });
});

describe('the SSRF guard on server-side fetches', { timeout: 60_000 }, () => {
  let fixture: RunFixture;
  let tools: HttpToolServer;
  before(async () => {
    tools = await startHttpToolServer();
    // No AGENT_RUNS_FETCH_ALLOW: loopback is refused like any private address.
    fixture = await startRunFixture('anthropic-messages');
  });
  after(async () => {
    await fixture.close();
    await tools.close();
  });
  afterEach(() => fixture.cleanUp());

  it('without AGENT_RUNS_FETCH_ALLOW a loopback tool endpoint is refused: a tool error the model reads, no request reaches it, and the run completes', async () => {
    tools.route('/internal', answerJson({ secret: 'internal' }));
    const created = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/tools`, {
      name: 'internal',
      http: { url: tools.url('/internal') },
    });
    assert.equal(created.status, 201);
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_i', name: 'internal', input: {} }] },
      { text: ['Refused.'] },
    );
    const { frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'p',
      tools: [{ kind: 'svc', id: created.body.id }],
    });
    assert.equal(types(frames).at(-1), 'result');
    assert.equal(tools.requests.length, 0, 'nothing reached the loopback server');
    const result = ofType(frames, 'tool_result')[0]?.data.data;
    assert.equal(result?.ok, false);
    assert.match(result?.summary, /AGENT_RUNS_FETCH_ALLOW/);
    const block = toolResultBlocks(fixture.fake.requests[1])[0];
    assert.equal(block?.is_error, true);
  });
});
