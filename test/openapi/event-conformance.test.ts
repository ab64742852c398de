import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { answerJson, startHttpToolServer, type HttpToolServer } from '../support/http-tool-server.ts';
import { types } from '../support/run-fixture.ts';
import type { SseFrame } from '../support/sse-client.ts';
import { deferred } from '../support/waits.ts';
import { startSessionFixture, type SessionFixture } from '../sessions/session-support.ts';
import { DocumentConformance } from './document-conformance.ts';

/**
 * Every event a real run streams fits the document's run event union: runs driven by a fake
 * provider (the real OpenAI Chat wire on loopback) through every kind of event the engine emits.
 */

const STREAM = '/api/v1/workspaces/{workspaceSlug}/agent-runs/{runId}/stream';
const EVENT_SCHEMA = `#/paths/${encodeURIComponent(STREAM.replace(/\//g, '~1'))}/get/responses/200/content/${encodeURIComponent('text~1event-stream')}/schema`;
const LOOPBACK = { AGENT_RUNS_FETCH_ALLOW: '127.0.0.0/8,::1/128' };
const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const CLOCK = { kind: 'svc_plugin', name: 'current_time' };
const LOOKUP = {
  kind: 'local',
  name: 'lookup',
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
};
const BLOCKED = { kind: 'local', name: 'blocked', parameters: { type: 'object', properties: {} } };
const clockCall = (id: string) => ({ id, name: 'current_time', input: { timeZone: 'UTC' } });

describe('every SSE event of a real run fits the document', { timeout: 120_000 }, () => {
  let fixture: SessionFixture;
  let tools: HttpToolServer;
  let conformance: DocumentConformance;
  const seen = new Set<string>();

  /** Checks each frame's `data` JSON against the stream's documented schema, and that `type` is the SSE event line. */
  function assertEventsFit(frames: readonly SseFrame[]): void {
    for (const frame of frames) {
      conformance.assertFits(EVENT_SCHEMA, frame.data, `the ${frame.data.type} event`);
      assert.equal(frame.event, frame.data.type);
      assert.equal(frame.id, String(frame.data.seq));
      seen.add(frame.data.type);
    }
  }

  before(async () => {
    tools = await startHttpToolServer();
    fixture = await startSessionFixture('openai-chat', { env: LOOPBACK });
    conformance = new DocumentConformance((await fixture.server.request('GET', '/openapi.json')).body);
  });
  after(async () => {
    await fixture.close();
    await tools.close();
  });
  afterEach(() => fixture.cleanUp());

  it('a run with thinking, server tools with files, a local tool, a budget, the loop guard and a plan: every event fits', async () => {
    tools.route(
      '/render',
      answerJson({
        result: 'rendered',
        files: [{ filename: 'dot.png', mimeType: 'image/png', data: PIXEL_PNG }],
      }),
    );
    const render = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/tools`, {
      name: 'render',
      http: { url: tools.url('/render') },
    });
    assert.equal(render.status, 201, JSON.stringify(render.body));
    fixture.fake.enqueue(
      {
        thinking: ['Let me look.'],
        text: ['Checking. '],
        toolCalls: [clockCall('c1'), { id: 'r1', name: 'render', input: {} }],
      },
      { toolCalls: [{ id: 'l1', name: 'lookup', input: { q: 'x' } }] },
      { toolCalls: [{ id: 'b1', name: 'blocked', input: {} }] },
      { toolCalls: [clockCall('c2')] },
      { toolCalls: [clockCall('c3')] },
      { text: ['Done.'] },
    );
    const run = await fixture.startRun({
      systemPrompt: 's',
      prompt: 'go',
      reasoningLevel: 'high',
      tools: [CLOCK, LOOKUP, BLOCKED, { kind: 'svc', id: render.body.id }],
      toolBudgets: { blocked: { maxCalls: 0 } },
      loopDetection: { consecutiveThreshold: 2, hardCutoffThreshold: 3 },
      plan: { steps: ['Look it up', 'Answer'] },
    });
    await run.waitFor((frame) => frame.data.type === 'local_tool_call', 'the local_tool_call');
    const posted = await fixture.postToolResult(run.runId, { toolUseId: 'l1', result: 'found' });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    const frames = await run.ended;
    assertEventsFit(frames);
    for (const type of [
      'thinking_delta',
      'tool_call',
      'tool_files',
      'tool_result',
      'local_tool_call',
      'local_tool_result_in',
      'tool_budget_exceeded',
      'loop_detected',
      'task_plan',
      'result',
    ]) {
      assert.ok(types(frames).includes(type), `${type} in ${types(frames).join(',')}`);
    }
  });

  it('a supervised run: the supervisor event fits', async () => {
    fixture.fake.enqueue(
      { toolCalls: [clockCall('c1')] },
      { text: ['My verdict: ', JSON.stringify({ action: 'on_track', reason: 'Fine.' })] },
      { text: ['It is noon.'] },
    );
    const { frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'time?',
      tools: [CLOCK],
      supervisor: { interval: 1 },
    });
    assertEventsFit(frames);
    assert.ok(types(frames).includes('supervisor'), types(frames).join(','));
  });

  it('a run cut at max_tokens: the error event fits, and so does the failed run snapshot with its failureReason', async () => {
    fixture.fake.enqueue({ text: ['Once upon ', 'a time'], finishReason: 'max_tokens' });
    const { runId, frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'story' });
    assertEventsFit(frames);
    assert.equal(types(frames).at(-1), 'error');
    const snapshot = await fixture.runSnapshot(runId);
    assert.equal(snapshot.body.failureReason?.errorClass, 'truncation');
    conformance.assertAnswer('GET', '/api/v1/workspaces/{workspaceSlug}/agent-runs/{runId}', snapshot);
  });

  it('a cancelled run: the cancel answer and the cancelled event fit', async () => {
    const release = deferred();
    fixture.fake.enqueue({ text: ['partial'], holdUntil: release.promise });
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'slow' });
    await fixture.fake.waitForRequests(1);
    const cancelled = await fixture.cancelRun(run.runId);
    release.resolve();
    conformance.assertAnswer(
      'POST',
      '/api/v1/workspaces/{workspaceSlug}/agent-runs/{runId}/cancel',
      cancelled,
    );
    const frames = await run.ended;
    assertEventsFit(frames);
    assert.equal(types(frames).at(-1), 'cancelled');
  });

  it('together the runs streamed every event type of the union', () => {
    const union = conformance.document.components.schemas.RunEvent.discriminator.mapping as Record<
      string,
      string
    >;
    assert.deepEqual([...seen].sort(), Object.keys(union).sort());
  });
});
