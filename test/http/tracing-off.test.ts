import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { clientSpan } from '../support/traced-service.ts';

describe(
  "tracing off: a run's trace context still continues the caller's traceparent",
  { timeout: 120_000 },
  () => {
    let fixture: RunFixture;
    before(async () => {
      fixture = await startRunFixture('openai-chat');
    });
    after(() => fixture?.close());

    it("a run created with a traceparent is stored in the caller's trace, its parent the caller's span; without one, in a new trace", async () => {
      const client = clientSpan();
      const traced = await fixture.createRun(
        { systemPrompt: 's', prompt: 'p' },
        { ...fixture.headers, traceparent: client.traceparent, tracestate: 'vendor=1' },
      );
      assert.equal(traced.status, 202, JSON.stringify(traced.body));
      const untraced = await fixture.createRun({ systemPrompt: 's', prompt: 'p' });
      assert.equal(untraced.status, 202, JSON.stringify(untraced.body));
      const workspace = await fixture.server.service.resources.repos.workspaces.findBySlug(fixture.slug);
      assert.ok(workspace);
      const stored = (runId: string) =>
        fixture.server.service.resources.repos.runs.findById(workspace.id, runId);
      const continued = (await stored(traced.body.runId as string))?.traceContext;
      assert.equal(continued?.traceId, client.traceId);
      assert.equal(continued?.parentSpanId, client.spanId);
      assert.equal(continued?.traceState, 'vendor=1');
      assert.match(continued?.spanId ?? '', /^[0-9a-f]{16}$/);
      const fresh = (await stored(untraced.body.runId as string))?.traceContext;
      assert.match(fresh?.traceId ?? '', /^[0-9a-f]{32}$/);
      assert.notEqual(fresh?.traceId, client.traceId);
      assert.equal(fresh?.parentSpanId, null);
    });
  },
);
