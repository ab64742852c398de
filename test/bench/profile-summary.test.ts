import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { summarizeProfile } from '../../bench/profile-summary.ts';

const APP = 'file:///app/node_modules';

/**
 * A V8 `.cpuprofile` of 10 samples 1 ms apart: 4 in Node's `writev` called by Fastify, 3 in Node's
 * `AsyncLocalStorage.run` called by the OpenTelemetry context manager, 2 in the SDK's `startSpan`
 * itself, 1 idle.
 */
const PROFILE = {
  nodes: [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 5, 8, 10] },
    {
      id: 2,
      callFrame: { functionName: 'send', url: `${APP}/fastify/lib/reply.js`, lineNumber: 1 },
      children: [3],
    },
    {
      id: 3,
      callFrame: { functionName: 'write', url: 'node:internal/streams/writable', lineNumber: 1 },
      children: [4],
    },
    { id: 4, callFrame: { functionName: 'writev', url: '', lineNumber: -1 } },
    {
      id: 5,
      callFrame: {
        functionName: 'with',
        url: `${APP}/@opentelemetry/context-async-hooks/dist/AsyncLocalStorageContextManager.mjs`,
        lineNumber: 1,
      },
      children: [6],
    },
    {
      id: 6,
      callFrame: {
        functionName: 'run',
        url: 'node:internal/async_local_storage/async_context_frame',
        lineNumber: 1,
      },
      children: [7],
    },
    {
      id: 7,
      callFrame: {
        functionName: 'AsyncContextFrame',
        url: 'node:internal/async_context_frame',
        lineNumber: 1,
      },
    },
    {
      id: 8,
      callFrame: {
        functionName: 'startSpan',
        url: `${APP}/@opentelemetry/sdk-trace/dist/Tracer.mjs`,
        lineNumber: 1,
      },
      children: [9],
    },
    { id: 9, callFrame: { functionName: '(garbage collector)', url: '', lineNumber: -1 } },
    { id: 10, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
  ],
  startTime: 0,
  samples: [4, 4, 4, 4, 7, 7, 7, 8, 8, 10],
  timeDeltas: Array.from({ length: 10 }, () => 1000),
};

describe('bench profile summary (npm run bench -- --profile)', () => {
  let dir: string;
  let summary: string;
  before(() => {
    dir = mkdtempSync(join(os.tmpdir(), 'profile-summary-test-'));
    const path = join(dir, 'CPU.test.cpuprofile');
    writeFileSync(path, JSON.stringify(PROFILE));
    summary = summarizeProfile(path);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("charges Node's internals and natives to the package that called them", () => {
    const section = summary.split('\n\n').find((part) => part.startsWith('self time by package'));
    assert.ok(section, summary);
    assert.match(section, /^ +4 ms +44\.4% {2}fastify$/m);
    assert.match(section, /^ +3 ms +33\.3% {2}@opentelemetry\/context-async-hooks$/m);
    assert.match(section, /^ +2 ms +22\.2% {2}@opentelemetry\/sdk-trace$/m);
  });

  it("totals tracing's own code: the OpenTelemetry packages and what they called", () => {
    assert.match(
      summary,
      /tracing's own code \(@opentelemetry\/\*, src\/infra\/tracing\/\), so charged: 5 ms, 55\.6% of busy/,
    );
  });
});
