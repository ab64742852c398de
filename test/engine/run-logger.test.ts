import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { Run } from '../../src/domain/run.ts';
import { baseTerminalFields } from '../../src/domain/terminal-fields.ts';
import { zeroUsage } from '../../src/domain/usage.ts';
import { logRunFinished } from '../../src/engine/lifecycle/run-end-line.ts';
import { runLogger } from '../../src/engine/lifecycle/run-logger.ts';
import { newRunTraceContext } from '../../src/domain/trace-context.ts';
import { cancelledEvent, errorEvent, resultEvent } from '../../src/engine/loop/terminal-events.ts';
import { STORED_RUN_SPEC } from '../storage/stored-run-spec.ts';

const RUN: Run = {
  id: 'run_01logs',
  workspaceId: 'ws_1',
  agentId: null,
  sessionId: null,
  apiKeyId: null,
  status: 'running',
  spec: STORED_RUN_SPEC,
  metadata: {},
  finalText: null,
  error: null,
  failureReason: null,
  tokens: null,
  turns: null,
  model: null,
  cancelRequestedAt: null,
  createdAt: '2026-11-28T20:00:00.000Z',
  updatedAt: '2026-11-28T20:00:00.000Z',
  endedAt: null,
  traceContext: null,
};

const FIELDS = baseTerminalFields(STORED_RUN_SPEC);
const MODEL = { id: 'mock/echo', provider: 'mock', vendorModelId: 'echo' };
const USAGE = {
  tokens: { inputTokens: 30, cachedTokens: 10, reasoningTokens: 2, outputTokens: 8 },
  turns: 2,
  model: MODEL,
};

/** A pino logger at `info` whose lines, parsed, land in `lines`. */
function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, lines };
}

describe('the run logger and the end-of-run line', () => {
  it('runLogger binds the run’s id to every line written through it, leaving the service’s logger as it was', () => {
    const { logger, lines } = capturedLogger();
    const log = runLogger(logger, RUN);
    log.warn({ tool: 'x' }, 'a tool warning');
    logger.info('a service line');
    assert.deepEqual(
      lines.map((line) => [line.msg, line.runId, line.tool]),
      [
        ['a tool warning', 'run_01logs', 'x'],
        ['a service line', undefined, undefined],
      ],
    );
  });

  it('a succeeded run: status, duration, turns, tokens and model at info, no errorClass', () => {
    const { logger, lines } = capturedLogger();
    logRunFinished(runLogger(logger, RUN), 'succeeded', resultEvent('done', USAGE, FIELDS.result), 1234);
    assert.equal(lines.length, 1);
    const { time, pid, hostname, ...fields } = lines[0] ?? {};
    assert.deepEqual([typeof time, typeof pid, typeof hostname], ['number', 'number', 'string']);
    assert.deepEqual(fields, {
      level: 30,
      runId: 'run_01logs',
      status: 'succeeded',
      durationMs: 1234,
      turns: 2,
      tokens: USAGE.tokens,
      model: MODEL,
      msg: 'run finished',
    });
  });

  it('a failed run names its errorClass; a cancelled run, like a succeeded one, has none', () => {
    const { logger, lines } = capturedLogger();
    const log = runLogger(logger, RUN);
    const failure = { message: 'bad key', errorClass: 'auth', code: 'auth', retryable: false };
    logRunFinished(
      log,
      'failed',
      errorEvent(failure, { ...USAGE, turns: 0, tokens: zeroUsage() }, FIELDS.error),
      5,
    );
    logRunFinished(log, 'cancelled', cancelledEvent(USAGE, null), 7);
    assert.deepEqual(
      lines.map((line) => [line.status, line.errorClass, line.turns, line.durationMs]),
      [
        ['failed', 'auth', 0, 5],
        ['cancelled', undefined, 2, 7],
      ],
    );
  });
});

describe("a run's log lines carry its runId, traceId and spanId (extensions §3)", () => {
  it("every line of the run's logger names the run and its span of its stored trace", () => {
    const { logger, lines } = capturedLogger();
    const traceContext = newRunTraceContext(undefined);
    runLogger(logger, { id: 'run_1', traceContext }).info('run started');
    assert.equal(lines[0]?.runId, 'run_1');
    assert.equal(lines[0]?.traceId, traceContext.traceId);
    assert.equal(lines[0]?.spanId, traceContext.spanId);
  });

  it('a run stored without a trace context logs its runId alone', () => {
    const { logger, lines } = capturedLogger();
    runLogger(logger, { id: 'run_2', traceContext: null }).info('run started');
    assert.equal(lines[0]?.runId, 'run_2');
    assert.equal('traceId' in (lines[0] ?? {}), false);
  });
});
