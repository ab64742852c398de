import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { eventually } from '../support/waits.ts';

/**
 * Issue 31, logs at `info`: one line per request, written once it is answered (an SSE stream: once
 * it ends), with its method, route template (never the raw path), status and duration; nothing on
 * the request's arrival. The API's lines are read as it writes them (scale-out: the API process is
 * the test's, the worker a child whose lines come in too).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- log lines are arbitrary JSON
type LogLine = Record<string, any>;

/** pino's number for `info`. */
const INFO = 30;

describe('request log lines', () => {
  let fixture: RunFixture;
  const raw: string[] = [];
  const lines = (): LogLine[] => raw.map((line) => JSON.parse(line) as LogLine);
  const requestLines = (): LogLine[] => lines().filter((line) => line.reqId !== undefined);

  before(async () => {
    fixture = await startRunFixture('openai-chat', { logLines: raw });
  });
  after(() => fixture.close());

  it('a created run and its stream give one `request completed` line each, with method, route template, status and duration; no `incoming request` line', async () => {
    const before = requestLines().length;
    const { runId } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'hello' });
    await eventually(
      () => requestLines().length >= before + 2,
      'the lines of the POST and of the stream are written',
    );
    const written = requestLines().slice(before);
    assert.equal(
      written.filter((line) => line.msg === 'incoming request').length,
      0,
      'nothing is logged on arrival',
    );
    const post = written.find((line) => line.method === 'POST');
    const stream = written.find((line) => line.method === 'GET');
    assert.ok(post && stream, JSON.stringify(written));
    assert.equal(written.length, 2, 'one line per request');
    assert.equal(post.msg, 'request completed');
    assert.equal(post.level, INFO);
    assert.equal(post.route, '/api/v1/workspaces/:workspaceSlug/agent-runs');
    assert.equal(post.status, 202);
    assert.equal(stream.route, '/api/v1/workspaces/:workspaceSlug/agent-runs/:runId/stream');
    assert.equal(stream.status, 200);
    for (const line of [post, stream]) {
      assert.equal(typeof line.durationMs, 'number');
      assert.ok(line.durationMs >= 0);
      assert.ok(!JSON.stringify(line).includes(runId), 'the raw path (and the run id in it) is not logged');
      assert.equal(line.req, undefined, 'no request object (headers, address)');
      assert.equal(line.url, undefined);
    }
    // The client opens the stream once the POST is answered, so a stream logged when it ends is logged
    // after the POST (the same process's clock). Durations are not compared: on a slow machine the
    // POST can take longer than replaying a short run's stream.
    assert.ok(stream.time >= post.time, 'the stream is logged when it ends, after the POST');
  });

  it('an unmatched path is logged as route `unmatched` with its 404, never the raw path', async () => {
    const before = requestLines().length;
    const answer = await fixture.server.request('GET', '/no/such/path-secret-123');
    assert.equal(answer.status, 404);
    await eventually(() => requestLines().length > before, 'the line of the 404 is written');
    const [line] = requestLines().slice(before);
    assert.equal(line?.route, 'unmatched');
    assert.equal(line?.status, 404);
    assert.equal(line?.method, 'GET');
    assert.ok(!JSON.stringify(line).includes('path-secret-123'));
  });
});
