import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { answerJson, startHttpToolServer, type HttpToolServer } from '../support/http-tool-server.ts';
import { startRestartableService, type RestartableService } from '../support/restartable-service.ts';
import { readAll, type SseFrame } from '../support/sse-client.ts';
import type { TestServer } from '../support/test-server.ts';
import { ofType, toolResultBlocks, toolResultText, WEATHER_TOOL } from './tool-support.ts';

const types = (frames: readonly SseFrame[]) => frames.map((frame) => frame.data.type);

describe(
  'exactly once: a server-resolved call is never executed again after a restart',
  { timeout: 60_000 },
  () => {
    let service: RestartableService;
    let tools: HttpToolServer;

    before(async () => {
      tools = await startHttpToolServer();
      service = await startRestartableService({
        slug: 'exactly-once',
        env: { AGENT_RUNS_FETCH_ALLOW: '127.0.0.0/8' },
      });
    });
    after(async () => {
      await service.close();
      await tools.close();
    });
    afterEach(() => service.cleanUp());

    async function workspaceTool(server: TestServer, name: string, path: string): Promise<string> {
      const created = await server.admin('POST', `/workspaces/${service.slug}/tools`, {
        name,
        http: { url: tools.url(path) },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body.id as string;
    }

    it('the worker stops while a slow HTTP tool runs: the restarted service does not call it again, and the model gets an interrupted-outcome-unknown result', async () => {
      tools.route('/slow_charge', () => {
        // Holds the request until the service drops it.
      });
      const first = await service.restart();
      const id = await workspaceTool(first, 'charge_card', '/slow_charge');
      service.fake.enqueue(
        { toolCalls: [{ id: 'toolu_charge', name: 'charge_card', input: {} }] },
        { text: ['I could not confirm the charge.'] },
      );
      const watch = await service.startRun(first, {
        systemPrompt: 's',
        prompt: 'charge it',
        tools: [{ kind: 'svc', id }],
      });
      await watch.waitForType('tool_call');
      await tools.until(
        (requests) => requests.some((r) => r.url === '/slow_charge'),
        'the call reached the tool server',
      );

      const second = await service.restart();
      await tools.until(
        (requests) => requests.some((r) => r.url === '/slow_charge' && r.closedByClient),
        'the stopped worker dropped its call',
      );
      const frames = await readAll(service.streamUrl(second, watch.runId), service.headers);
      assert.equal(types(frames).at(-1), 'result');
      assert.equal(tools.requestsTo('/slow_charge').length, 1, 'the tool server saw exactly one request');
      assert.equal(
        tools.requestsTo('/slow_charge')[0]?.headers['idempotency-key'],
        'toolu_charge',
        'extensions §5: the call carries Idempotency-Key: <toolUseId>',
      );
      assert.equal(ofType(frames, 'tool_call').length, 1);
      const result = ofType(frames, 'tool_result');
      assert.equal(result.length, 1);
      assert.equal(result[0]?.data.data.ok, false);
      assert.match(result[0]?.data.data.summary, /interrupted/);
      const block = toolResultBlocks(service.fake.requests.at(-1))[0];
      assert.equal(block?.is_error, true);
      assert.match(toolResultText(block), /outcome is unknown/);
      assert.deepEqual(
        frames.map((frame) => frame.data.seq),
        frames.map((_, index) => index + 1),
        'seq continues without gaps or repeats',
      );
    });

    it('a round of a server call and a client call parked across a restart: the recorded server outcome is reused, not re-executed, and each tool_result is streamed once', async () => {
      tools.route('/lookup', answerJson({ found: 'the answer' }));
      const first = await service.restart();
      const id = await workspaceTool(first, 'lookup', '/lookup');
      service.fake.enqueue(
        {
          toolCalls: [
            { id: 'toolu_lookup', name: 'lookup', input: {} },
            { id: 'toolu_weather', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        { text: ['Done.'] },
      );
      const before = tools.requestsTo('/lookup').length;
      const watch = await service.startRun(first, {
        systemPrompt: 's',
        prompt: 'p',
        tools: [{ kind: 'svc', id }, WEATHER_TOOL],
      });
      await watch.waitForType('local_tool_call');
      const second = await service.restart();
      const posted = await second.request('POST', `${service.ws}/agent-runs/${watch.runId}/tool-results`, {
        body: { toolUseId: 'toolu_weather', result: '21C' },
        headers: service.headers,
      });
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      const frames = await readAll(service.streamUrl(second, watch.runId), service.headers);
      assert.equal(types(frames).at(-1), 'result');
      assert.equal(tools.requestsTo('/lookup').length - before, 1, 'executed once');
      assert.equal(ofType(frames, 'tool_result').length, 1, 'its tool_result is not streamed twice');
      const blocks = toolResultBlocks(service.fake.requests.at(-1));
      assert.deepEqual(
        blocks.map((block) => [block.tool_use_id, toolResultText(block)]),
        [
          ['toolu_lookup', JSON.stringify({ found: 'the answer' })],
          ['toolu_weather', '21C'],
        ],
      );
    });
  },
);
